// The module header (`HloModule name, key=value, ...`) and the stack-frame
// index sections (`FileNames`, `FunctionNames`, `FileLocations`,
// `StackFrames`) that may follow it.
#pragma once

#include "hlo/module.h"
#include "parser/cursor.h"

namespace hlo {

// Reads the header after the `HloModule` keyword: the module name and its
// attributes. Every value is kept verbatim for printing, after checking it
// as XLA's parser does (unknown keys are refused; `input_output_alias`,
// `buffer_donor`, `debug_attributes`, booleans and integers are checked).
Status parseModuleHeader(Cursor& c, Module& module);

// True when the cursor is at a stack-frame section keyword.
bool atStackFrameSection(Cursor& c);
// Reads one stack-frame section into module.stackFrameText(), verbatim.
Status parseStackFrameSection(Cursor& c, Module& module);

}  // namespace hlo
