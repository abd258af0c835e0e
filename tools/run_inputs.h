// Reading a run's --input values against the ENTRY's parameters, for
// hlo-run: literal text (or the values alone in the parameter's shape),
// .npy files, an .npz for all parameters; on several devices also the whole
// array a parameter's sharding splits. Errors go to stderr as
// "where: error: message" and come back as exit status 1.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/npy.h"
#include "hlo/sharding.h"
#include "parser/parser.h"
#include "hlo/file_io.h"

namespace hlo::run_inputs {

// One line "where: error: message" on stderr; returns exit status 1.
inline int inputError(const std::string& where, const std::string& message) {
  std::fprintf(stderr, "%s: error: %s\n", where.c_str(), message.c_str());
  return 1;
}

// "file:line:col" of an instruction or computation, or just "file".
inline std::string where(const std::string& file, SourceLoc loc) {
  if (!loc.known()) return file;
  return file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
}

inline bool hasElidedValues(const Literal& value) {
  if (value.elided()) return true;
  for (const Literal& e : value.tupleElements())
    if (hasElidedValues(e)) return true;
  return false;
}

// The parameters' shardings (hlo/sharding.h), where they have one that says
// how to split an array.
using Shardings = std::vector<std::optional<Sharding>>;

// The entry computation's parameters and the arguments found for them so far.
struct Arguments {
  const Computation* entry;
  std::string file;  // the module, for error locations
  std::vector<std::optional<Literal>> values;
  // On several devices, the parameters' shardings: a parameter also takes
  // the whole array its sharding splits (then whole[p] is set).
  const Shardings* shardings = nullptr;
  std::vector<bool> whole;

  bool takesWhole(int p, const Shape& given) const {
    return shardings && (*shardings)[p] && isGlobalOf(*(*shardings)[p], given, entry->parameter(p)->shape());
  }

  std::string paramName(int p) const {
    return "parameter " + std::to_string(p) + " '" + entry->parameter(p)->name() + "'";
  }

  // Checks `value` (from `what`, e.g. "--input 2") against parameter p and
  // keeps it; returns an exit status on a mismatch.
  std::optional<int> set(int p, NpyArray value, const std::string& what) {
    const Instruction* param = entry->parameter(p);
    const Shape& want = param->shape();
    if (value.untyped) {
      Status retyped = retypeRaw(value, want.isArray() ? want.type() : ElementType::kTuple);
      if (!retyped.ok())
        return inputError(where(file, param->loc()), what + " for " + paramName(p) + ": " + retyped.message());
    }
    Literal& got = value.value;
    if (hasElidedValues(got))
      return inputError(what, "the values are left out ({...}); give them all");
    bool sameArray = want.isArray() && got.shape().isArray() && want.type() == got.type() &&
                     want.dims() == got.shape().dims();
    if (!got.shape().compatible(want) && !sameArray && takesWhole(p, got.shape())) {
      whole.resize(values.size());
      whole[p] = true;
      values[p] = std::move(got);
      return std::nullopt;
    }
    if (!got.shape().compatible(want) && !sameArray)
      return inputError(where(file, param->loc()),
                        what + " is " + got.shape().toString(false) + " but " + paramName(p) +
                            " of ENTRY '" + entry->name() + "' is " + want.toString(false));
    got.mutableShape() = want;
    values[p] = std::move(got);
    return std::nullopt;
  }
};

// Reads the --input values into `args`; returns an exit status on an error.
inline std::optional<int> readInputs(const std::vector<std::string>& inputs, Arguments& args) {
  int params = args.entry->parameterCount();
  if (static_cast<int>(inputs.size()) > params)
    return inputError(where(args.file, args.entry->loc()),
                      std::to_string(inputs.size()) + " --input values given but ENTRY '" +
                          args.entry->name() + "' takes " + std::to_string(params) + " parameters");
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string& text = inputs[k];
    std::string flag = "--input " + std::to_string(k + 1);
    if (text.empty() || text[0] != '@') {
      auto literal = parseLiteral(text);
      // Values without a shape (`3`, `{1, 2}`) take the parameter's shape.
      if (!literal.ok() && args.entry->parameter(static_cast<int>(k))) {
        const Instruction& param = *args.entry->parameter(static_cast<int>(k));
        auto values = parseLiteralValues(text, param.shape());
        // Or the whole array, on several devices.
        if (!values.ok() && args.shardings && (*args.shardings)[k])
          values = parseLiteralValues(text, globalShape(*(*args.shardings)[k], param.shape()));
        if (values.ok()) literal = std::move(values);
      }
      if (!literal.ok()) {
        // "--input 2:1:9: error: ...", the text and a caret under the column.
        std::string message = formatError(literal.status(), flag, text);
        std::fputs(message.c_str(), stderr);
        return 1;
      }
      if (auto rc = args.set(static_cast<int>(k), {std::move(literal).value(), false}, flag)) return rc;
      continue;
    }
    std::string path = text.substr(1);
    std::optional<std::string> bytes = readInput(path);
    if (!bytes) return inputError(path, "cannot read file (" + flag + ")");
    if (looksLikeZip(*bytes)) {
      if (inputs.size() != 1)
        return inputError(path, "an .npz input gives every parameter; it must be the only --input");
      auto members = readNpz(*bytes);
      if (!members.ok()) return inputError(path, members.status().message());
      // By name when every array is named after a parameter, else in order.
      bool byName = !members->empty();
      for (const NpzMember& m : *members)
        if (!args.entry->find(m.name) || args.entry->find(m.name)->opcode() != Opcode::kParameter)
          byName = false;
      if (!byName && static_cast<int>(members->size()) > params)
        return inputError(where(args.file, args.entry->loc()),
                          path + " holds " + std::to_string(members->size()) + " arrays but ENTRY '" +
                              args.entry->name() + "' takes " + std::to_string(params) + " parameters");
      for (size_t i = 0; i < members->size(); ++i) {
        NpzMember& m = (*members)[i];
        int p = byName ? static_cast<int>(args.entry->find(m.name)->parameterNumber()) : static_cast<int>(i);
        if (auto rc = args.set(p, std::move(m.array), path + " array '" + m.name + "'")) return rc;
      }
      return std::nullopt;
    }
    auto array = readNpy(*bytes);
    if (!array.ok()) return inputError(path, array.status().message());
    if (auto rc = args.set(static_cast<int>(k), std::move(array).value(), flag + " (" + path + ")")) return rc;
  }
  return std::nullopt;
}

}  // namespace hlo::run_inputs
