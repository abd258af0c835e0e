// For gtests: the module of an HLO text, or a test failure naming the parse
// error and nullptr.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string_view>

#include "parser/parser.h"

namespace hlo {

inline std::unique_ptr<Module> parseOrFail(std::string_view text) {
  auto module = parseModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  return module.ok() ? std::move(*module) : nullptr;
}

}  // namespace hlo
