// Private to the verifier files.
#pragma once

#include "hlo/module.h"
#include "hlo/status.h"

namespace hlo {

// The pairing of asynchronous operations (verifier_async.cc).
Status checkAsyncPairs(const Module& module);

}  // namespace hlo
