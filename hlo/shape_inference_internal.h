// Private to the shape-inference files: the per-family inference functions and
// the small helpers they share. Everyone else includes hlo/shape_inference.h.
#pragma once

#include <string>
#include <vector>

#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/shape.h"
#include "hlo/status.h"

namespace hlo::inference {

// What one inference call looks at: the instruction, and the shape its text
// declares (null when inferring from scratch, e.g. for a shapeless instruction).
struct Ctx {
  const Instruction& instr;
  const Shape* declared;

  Opcode op() const { return instr.opcode(); }
  int operandCount() const { return instr.operandCount(); }
  const Shape& operand(int i) const { return instr.operand(i)->shape(); }
  const Attributes& attrs() const { return instr.attrs(); }
  // "<opcode> '<name>': <message>" at the instruction's location.
  Status error(const std::string& message) const;
  // "cannot infer the shape of <opcode> '<name>': write it".
  Status cannotInfer() const;
};

// Array shape with per-dimension dynamic flags.
Shape makeArray(ElementType type, const std::vector<int64_t>& dims,
                const std::vector<bool>& dynamic);
Shape withType(Shape shape, ElementType type);
// The shape without dimension `dim`.
Shape deleteDim(const Shape& shape, int dim);
// `f32[2,3]` (no layout), for messages.
std::string str(const Shape& shape);
std::string str(const std::vector<int64_t>& ints);
// Equal sizes, or either one unbounded (`?`).
bool compatibleDim(int64_t a, int64_t b);
// Same rank and compatible sizes; element types and dynamism ignored.
bool sameDims(const Shape& a, const Shape& b);
// Equal element types, or both floating point (XLA's "ignoring fp precision").
bool sameTypeIgnoringFp(ElementType a, ElementType b);
// Equal up to layouts, dynamism and (when ignoreFp) floating-point precision.
bool compatibleShapes(const Shape& a, const Shape& b, bool ignoreFp);
// The wider of two element types (for mixed-precision float operands).
ElementType higherPrecision(ElementType a, ElementType b);
// Each value in [0, rank), no repeats.
bool validDimList(const std::vector<int64_t>& dims, int64_t rank);
bool isPermutation(const std::vector<int64_t>& dims, int64_t rank);
// The number of devices in one replica group, or -1 when the groups are not
// written out (absent, or a form we do not decode).
int64_t replicaGroupSize(const Attributes& attrs);
// The shape of a called computation's root; error when absent.
StatusOr<Shape> rootShape(const Ctx& c, const Computation* comp, const char* role);

// One function per opcode family, grouped by file; the dispatcher in
// shape_inference.cc picks one per opcode. Each returns the result shape or an
// error naming the instruction.

// shape_inference_elementwise.cc
StatusOr<Shape> inferUnary(const Ctx& c);
StatusOr<Shape> inferBinary(const Ctx& c);
StatusOr<Shape> inferSelect(const Ctx& c);
StatusOr<Shape> inferClamp(const Ctx& c);
StatusOr<Shape> inferConvert(const Ctx& c);  // convert, bitcast-convert, stochastic-convert
StatusOr<Shape> inferReducePrecision(const Ctx& c);
StatusOr<Shape> inferMap(const Ctx& c);

// shape_inference_data.cc
StatusOr<Shape> inferTuple(const Ctx& c);
StatusOr<Shape> inferGetTupleElement(const Ctx& c);
StatusOr<Shape> inferSlice(const Ctx& c);
StatusOr<Shape> inferDynamicSlice(const Ctx& c);
StatusOr<Shape> inferDynamicUpdateSlice(const Ctx& c);
StatusOr<Shape> inferPad(const Ctx& c);
StatusOr<Shape> inferConcatenate(const Ctx& c);
StatusOr<Shape> inferTranspose(const Ctx& c);
StatusOr<Shape> inferReverse(const Ctx& c);
StatusOr<Shape> inferBroadcast(const Ctx& c);
StatusOr<Shape> inferReshape(const Ctx& c);
StatusOr<Shape> inferDynamicReshape(const Ctx& c);
StatusOr<Shape> inferIota(const Ctx& c);
StatusOr<Shape> inferGetDimensionSize(const Ctx& c);
StatusOr<Shape> inferSetDimensionSize(const Ctx& c);
StatusOr<Shape> inferSort(const Ctx& c);
StatusOr<Shape> inferTopK(const Ctx& c);

// shape_inference_gather.cc
StatusOr<Shape> inferGather(const Ctx& c);
StatusOr<Shape> inferScatter(const Ctx& c);

// shape_inference_compute.cc
StatusOr<Shape> inferDot(const Ctx& c);  // dot, scaled-dot
StatusOr<Shape> inferRaggedDot(const Ctx& c);
StatusOr<Shape> inferConvolution(const Ctx& c);
StatusOr<Shape> inferFft(const Ctx& c);
StatusOr<Shape> inferTriangularSolve(const Ctx& c);
StatusOr<Shape> inferCholesky(const Ctx& c);
StatusOr<Shape> inferBatchNorm(const Ctx& c);  // training, inference, grad
// The output of sliding `window` over `base` (reduce-window, select-and-scatter).
StatusOr<Shape> windowedShape(const Ctx& c, const Shape& base,
                              const std::vector<WindowDim>& window, ElementType type);

// shape_inference_reduce.cc
StatusOr<Shape> inferReduce(const Ctx& c);
StatusOr<Shape> inferReduceWindow(const Ctx& c);
StatusOr<Shape> inferSelectAndScatter(const Ctx& c);
StatusOr<Shape> inferScan(const Ctx& c);

// shape_inference_control.cc
StatusOr<Shape> inferCall(const Ctx& c);
StatusOr<Shape> inferFusion(const Ctx& c);
StatusOr<Shape> inferWhile(const Ctx& c);
StatusOr<Shape> inferConditional(const Ctx& c);
StatusOr<Shape> inferAsync(const Ctx& c);  // async-start, -update, -done
StatusOr<Shape> inferCopyStartDone(const Ctx& c);
StatusOr<Shape> inferSendRecv(const Ctx& c);  // send, send-done, recv, recv-done
StatusOr<Shape> inferFeed(const Ctx& c);      // infeed, outfeed
StatusOr<Shape> inferTokenOp(const Ctx& c);   // after-all, add-dependency
StatusOr<Shape> inferRng(const Ctx& c);       // rng, rng-bit-generator, rng-get-and-update-state

// shape_inference_collective.cc
StatusOr<Shape> inferAllGather(const Ctx& c);  // all-gather, all-gather-start
StatusOr<Shape> inferAllReduce(const Ctx& c);  // all-reduce, all-reduce-start
StatusOr<Shape> inferReduceScatter(const Ctx& c);
StatusOr<Shape> inferAllToAll(const Ctx& c);
StatusOr<Shape> inferRaggedAllToAll(const Ctx& c);
StatusOr<Shape> inferCollectivePermute(const Ctx& c);  // and -start
StatusOr<Shape> inferCollectiveBroadcast(const Ctx& c);
// all-gather-done, all-reduce-done, collective-permute-done
StatusOr<Shape> inferCollectiveDone(const Ctx& c);

// Checks that `comp` is a reducer over `inputs` values: 2*inputs scalar
// parameters, a scalar (or tuple of `inputs` scalars) root whose element i has
// the type of initTypes[i] and of inputTypes[i] (fp precision ignored).
Status checkReducer(const Ctx& c, const Computation* comp,
                    const std::vector<ElementType>& inputTypes,
                    const std::vector<const Shape*>& initShapes);

}  // namespace hlo::inference
