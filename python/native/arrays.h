// NumPy arrays to and from literals, for the Python extension.
//
// An array's numpy dtype is the one hlo._dtypes.dtype_of names for its
// element type (NumPy's own types, and ml_dtypes' bfloat16, float8_*,
// int4...). Arguments are borrowed, not copied, when their memory already
// is a literal's storage: C-contiguous, aligned, and of a type stored a
// byte or more per value as numpy stores it. Results are handed to numpy
// without a copy: the array's base owns the literal.
#pragma once

#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "hlo/literal.h"
#include "hlo/shape.h"

namespace hlo::python {

namespace py = pybind11;

// Thrown by the conversions and the bindings; hlo_native.cc turns it into
// hlo.HloError with the location, when there is one.
struct HloErrorException {
  std::string message;
  std::string file;
  int line = 0;
  int column = 0;
};

// An error with no place in a module's text.
inline HloErrorException hloError(std::string message) { return HloErrorException{std::move(message), "", 0, 0}; }

// The numpy dtype of element type `type` (an array type).
py::dtype dtypeOf(ElementType type);

// The literal for argument `value` of a parameter of shape `want`: an array
// (anything numpy.asarray takes) for an array, a tuple for a tuple, None for
// a token. `what` names the argument in errors ("argument 1 (parameter 1
// 'y', f32[2])"). Arrays the literal borrows are appended to `keepAlive`,
// which the caller keeps until the run is over.
Literal literalFromPython(py::handle value, const Shape& want, const std::string& what,
                          std::vector<py::object>& keepAlive);

// A run's result: a numpy array, a tuple of results, or None for a token.
py::object pythonFromLiteral(Literal&& value);

}  // namespace hlo::python
