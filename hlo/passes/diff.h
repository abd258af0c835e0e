// A line-based unified diff (Myers' O(ND) algorithm), for showing what a
// pass changed (`hlo-opt --print-changed`).
#pragma once

#include <string>
#include <string_view>

namespace hlo {

// The unified diff from `before` to `after`, with `context` unchanged lines
// around each change: `--- beforeName`, `+++ afterName`, then hunks headed
// `@@ -start,count +start,count @@`. Empty when the texts are equal.
std::string unifiedDiff(std::string_view before, std::string_view after,
                        std::string_view beforeName, std::string_view afterName, int context = 3);

}  // namespace hlo
