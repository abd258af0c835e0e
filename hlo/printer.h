// Printing modules, computations and instructions as HLO text.
//
// The printed form is canonical: printing a module, parsing the text and
// printing again gives the same text (the parser tests check this fixed point).
#pragma once

#include <string>

#include "hlo/module.h"

namespace hlo {

std::string printModule(const Module& module);
void printComputation(const Computation& computation, bool isEntry, std::string& out);
// One instruction line without indentation or ROOT: `%x = f32[] add(%a, %b)`.
std::string printInstruction(const Instruction& instr);
void printAttrValue(AttrKey key, const AttrValue& value, std::string& out);
// `"text"` with quotes and backslashes escaped.
std::string quoteString(std::string_view s);

}  // namespace hlo
