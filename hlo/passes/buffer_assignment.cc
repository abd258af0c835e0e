// buffer-assignment: gives every array value of the entry computation (and
// of the computations a while, conditional or call runs) a place in memory,
// so that a backend allocates one arena per execution and knows each
// instruction's output address before it runs. An analysis: the module is
// not changed.
//
// Algorithm, per computation:
//   1. Schedule: the instructions in their order in the computation, which is
//      def-before-use (the verifier checks it; anything else is an error).
//   2. Values: each array leaf of each result is a value. A parameter's leaves
//      live in the caller's argument, a constant's in its own read-only data;
//      tuple, get-tuple-element, bitcast, opt-barrier, domain and
//      add-dependency name their operand's buffers (no copy; a bitcast that
//      BufferAssignmentOptions::bitcastCopies names is a copy); every other
//      instruction writes fresh buffers, one per array leaf.
//   3. Liveness: a buffer lives from the step that writes it to the last step
//      that reads it through any of its names; what the computation returns
//      lives to the end. Forwarding instructions (step 2) are not reads.
//   4. In place: a dynamic-update-slice whose operand buffer is an arena
//      buffer read by nothing after it writes into that buffer instead of a
//      new one (and so a chain of them updates one buffer).
//   5. Aliasing (ENTRY only): an output the module header aliases with a
//      parameter (`input_output_alias`), or that a donated parameter
//      (`buffer_donor`, matched by size, first output first) can hold, moves
//      into the parameter's memory when the parameter is read no later than
//      the output is written (at that step only by an in-place
//      dynamic-update-slice of it).
//      With BufferAssignmentOptions::outputsOutsideArena there is no
//      aliasing: the buffers of the ENTRY's root leaves (those that would be
//      arena ranges) become outputs, numbered in leaf order, outside the
//      arena; they still count in the peak.
//   6. Offsets: walk the schedule; before step s, release the buffers last
//      read at step s-1, then place each buffer written at s in the smallest
//      free range that fits (best fit, lowest offset on ties), growing the
//      arena when none does. Sizes are rounded up to kBufferAlignment.
//
// Nested computations: a while, conditional or call (and a fusion that
// BufferAssignmentOptions::fusionRunsAsCall names) is one step of its
// caller. The computations it runs get their own arenas (assigned the same
// way, recursively), placed in one scratch range of the caller reserved for
// that step only; the callees run one at a time, so the range is as large as
// the largest. Their results are copied into the caller's fresh result
// buffers (a while's loop state lives there between iterations). Any other
// fusion is one step too: its fused computation, like every reducer,
// comparator or other applied computation, keeps its values in registers and
// has no buffers.
//
// Left alone: reordering the schedule to shorten live ranges; in-place
// updates inside loop bodies through the loop state (a body's parameter is
// the caller's memory, so assignment gives its dynamic-update-slice a buffer
// of its own; the CPU runtime, which runs the body on the loop's own state,
// updates the state in place instead: backends/cpu/cpu_compiler.cc,
// updatesParameterElement); sharing
// between async start/done pairs, send/recv and collectives (ordinary
// instructions here); tokens and zero-sized arrays (no memory); sub-byte
// packing (an s4 takes a byte, as storageBytes says).
#include "hlo/passes/buffer_assignment.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <unordered_set>

#include "hlo/passes/explain.h"
#include "hlo/passes/pass.h"

namespace hlo {
namespace {

// Values bigger than this are refused rather than overflow the arithmetic.
constexpr double kMaxBufferBytes = double(int64_t{1} << 50);

int64_t alignUp(int64_t n) { return (n + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment; }

void arrayLeaves(const Shape& shape, ShapeIndex& at, std::vector<ShapeIndex>& out) {
  if (shape.isArray()) {
    out.push_back(at);
    return;
  }
  if (!shape.isTuple()) return;  // tokens, opaque values and buffers hold no array
  for (int i = 0; i < shape.tupleSize(); ++i) {
    at.push_back(i);
    arrayLeaves(shape.tupleElement(i), at, out);
    at.pop_back();
  }
}

// Whether `i`'s result is its operand's (or a part of it), unchanged.
bool forwards(const Instruction& i, const BufferAssignmentOptions& options) {
  Opcode op = i.opcode();
  if (op == Opcode::kBitcast) return !(options.bitcastCopies && options.bitcastCopies(i));
  return op == Opcode::kTuple || op == Opcode::kGetTupleElement || op == Opcode::kOptimizationBarrier ||
         op == Opcode::kDomain || op == Opcode::kAddDependency;
}

// The computations `i` runs as programs with buffers of their own.
std::vector<Computation*> programCallees(const Instruction& i, const BufferAssignmentOptions& options) {
  Opcode op = i.opcode();
  if (op == Opcode::kWhile || op == Opcode::kConditional || op == Opcode::kCall)
    return i.calledComputations();
  if (op == Opcode::kFusion && options.fusionRunsAsCall && options.fusionRunsAsCall(i))
    return i.calledComputations();
  return {};
}

// Reads the header's `input_output_alias` and `buffer_donor` values.
class HeaderReader {
 public:
  explicit HeaderReader(std::string_view text) : s_(text) {}

  bool eat(char c) {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
    if (at_ < s_.size() && s_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  bool integer(int64_t& v) {
    eat(' ');
    size_t start = at_;
    v = 0;
    while (at_ < s_.size() && s_[at_] >= '0' && s_[at_] <= '9' && v < (int64_t{1} << 40))
      v = v * 10 + (s_[at_++] - '0');
    return at_ > start;
  }
  bool index(ShapeIndex& out) {
    out.clear();
    if (!eat('{')) return false;
    if (eat('}')) return true;
    do {
      int64_t v;
      if (!integer(v)) return false;
      out.push_back(v);
    } while (eat(','));
    return eat('}');
  }
  void skipWord() {  // may-alias, must-alias
    eat(' ');
    while (at_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[at_])) || s_[at_] == '-')) ++at_;
  }
  bool done() {
    eat(' ');
    return at_ == s_.size();
  }

 private:
  std::string_view s_;
  size_t at_ = 0;
};

struct Alias {
  ShapeIndex output;  // empty optional output: a donor, matched later
  bool hasOutput = false;
  int64_t parameter = 0;
  ShapeIndex parameterIndex;
};

// `{ {0}: (0, {}, may-alias), ... }` and `{ (0, {}), ... }`.
StatusOr<std::vector<Alias>> readAliases(const Module& module) {
  std::vector<Alias> out;
  for (const auto& [key, value] : module.headerAttributes()) {
    bool io = key == "input_output_alias";
    if (!io && key != "buffer_donor") continue;
    HeaderReader r(value);
    bool ok = r.eat('{');
    while (ok && !r.eat('}')) {
      Alias a;
      a.hasOutput = io;
      if (io) ok = r.index(a.output) && r.eat(':');
      ok = ok && r.eat('(') && r.integer(a.parameter) && r.eat(',') && r.index(a.parameterIndex);
      if (ok && io && r.eat(',')) r.skipWord();
      ok = ok && r.eat(')');
      r.eat(',');
      if (ok) out.push_back(a);
    }
    if (!ok || !r.done()) return errorStatus("cannot read the module's " + key + "=" + value);
  }
  // input_output_alias first: it names its output; donors take what is left.
  std::stable_partition(out.begin(), out.end(), [](const Alias& a) { return a.hasOutput; });
  return out;
}

// Free ranges of an arena that only grows: best fit, lowest offset on ties.
class Arena {
 public:
  int64_t allocate(int64_t size) {
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it)
      if (it->second >= size && (best == free_.end() || it->second < best->second)) best = it;
    if (best == free_.end()) {
      // Grow, starting inside a free range that ends at the top.
      int64_t offset = top_;
      if (!free_.empty() && std::prev(free_.end())->first + std::prev(free_.end())->second == top_) {
        offset = std::prev(free_.end())->first;
        free_.erase(std::prev(free_.end()));
      }
      top_ = offset + size;
      return offset;
    }
    int64_t offset = best->first, left = best->second - size;
    free_.erase(best);
    if (left > 0) free_[offset + size] = left;
    return offset;
  }
  void release(int64_t offset, int64_t size) {
    auto next = free_.lower_bound(offset);
    if (next != free_.end() && offset + size == next->first) {
      size += next->second;
      next = free_.erase(next);
    }
    if (next != free_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        prev->second += size;
        return;
      }
    }
    free_[offset] = size;
  }
  int64_t size() const { return top_; }

 private:
  std::map<int64_t, int64_t> free_;  // offset -> size
  int64_t top_ = 0;
};

}  // namespace

// Assigns one computation at a time, callees first, each once.
class BufferAssigner {
 public:
  BufferAssigner(const Module& module, const BufferAssignmentOptions& options) : module_(module), options_(options) {}

  StatusOr<BufferAssignment> run() {
    if (!module_.entry()) return errorStatus("the module has no entry computation");
    if (!options_.outputsOutsideArena) {
      auto aliases = readAliases(module_);
      if (!aliases.ok()) return aliases.status();
      aliases_ = std::move(*aliases);
    }
    HLO_RETURN_IF_ERROR(assign(*module_.entry()));
    // The entry first, then callers before callees.
    BufferAssignment result;
    std::unordered_set<const Computation*> placed;
    std::vector<const Computation*> stack{module_.entry()};
    while (!stack.empty()) {
      const Computation* c = stack.back();
      stack.pop_back();
      if (!placed.insert(c).second) continue;
      result.computations.push_back(std::move(done_.at(c)));
      const ComputationBuffers& cb = result.computations.back();
      for (auto it = cb.scratch.rbegin(); it != cb.scratch.rend(); ++it) {
        std::vector<Computation*> callees = programCallees(*it->instruction, options_);
        for (auto c2 = callees.rbegin(); c2 != callees.rend(); ++c2)
          if (*c2) stack.push_back(*c2);
      }
    }
    return result;
  }

 private:
  struct Buffer {
    const Instruction* owner = nullptr;
    ShapeIndex ownerIndex;
    BufferKind kind = BufferKind::kArena;
    int64_t bytes = 0;
    int64_t parameter = -1;
    ShapeIndex parameterIndex;
    int64_t output = -1;
    int64_t first = 0, last = 0;  // steps
    int64_t offset = 0;
    int mergedInto = -1;  // in-place: the buffer this one became
  };

  int find(int id) const {
    while (buffers_[id].mergedInto >= 0) id = buffers_[id].mergedInto;
    return id;
  }
  // The buffer of `instr`'s leaf `index`, or -1.
  int lookup(const Instruction* instr, const ShapeIndex& index) const {
    auto it = leaves_.find(instr);
    if (it == leaves_.end()) return -1;
    for (const auto& [leaf, id] : it->second)
      if (leaf == index) return find(id);
    return -1;
  }

  Status assign(const Computation& comp) {
    if (done_.count(&comp)) return okStatus();
    if (!inProgress_.insert(&comp).second)
      return errorStatus("computation '" + comp.name() + "' runs itself");
    // Callees first, so their arena sizes are known.
    for (const auto& instr : comp.instructions())
      for (const Computation* callee : programCallees(*instr, options_))
        if (callee) HLO_RETURN_IF_ERROR(assign(*callee));
    buffers_.clear();
    leaves_.clear();
    ComputationBuffers cb;
    cb.computation = &comp;
    HLO_RETURN_IF_ERROR(defineValues(comp, cb));   // steps 1-2
    markReads(comp, cb);                            // step 3
    updateInPlace(cb);                              // step 4
    if (&comp == module_.entry()) {                    // step 5
      if (options_.outputsOutsideArena) {
        separateOutputs(comp);
      } else {
        aliasOutputs(comp);
      }
    }
    placeBuffers(cb);                               // step 6
    if (options_.explain) explainPlacement(comp);
    writeSlots(cb);
    inProgress_.erase(&comp);
    done_[&comp] = std::move(cb);
    return okStatus();
  }

  int newBuffer(const Instruction& i, const ShapeIndex& index, BufferKind kind, int64_t bytes, int64_t step) {
    Buffer b;
    b.owner = &i;
    b.ownerIndex = index;
    b.kind = kind;
    b.bytes = bytes;
    if (kind == BufferKind::kParameter) {
      b.parameter = i.parameterNumber();
      b.parameterIndex = index;
    }
    b.first = b.last = step;
    buffers_.push_back(std::move(b));
    return static_cast<int>(buffers_.size() - 1);
  }

  Status defineValues(const Computation& comp, ComputationBuffers& cb) {
    for (const auto& owned : comp.instructions()) {
      const Instruction& i = *owned;
      int64_t step = static_cast<int64_t>(cb.schedule.size());
      for (const Instruction* op : i.operands())
        if (!leaves_.count(op))
          return errorStatus("instruction '" + i.name() + "' reads '" + op->name() +
                             "' before it is defined: the instructions of '" + comp.name() +
                             "' are not in def-before-use order", i.loc());
      cb.schedule.push_back(&i);
      std::vector<ShapeIndex> indices;
      ShapeIndex at;
      arrayLeaves(i.shape(), at, indices);
      auto& mine = leaves_[&i];
      for (const ShapeIndex& index : indices) {
        const Shape* leaf = subshape(i.shape(), index);
        double bytes = storageBytes(leaf->type());
        for (int64_t d : leaf->dims()) bytes *= static_cast<double>(std::max<int64_t>(d, 0));
        if (bytes > kMaxBufferBytes) {
          char size[32];
          std::snprintf(size, sizeof size, "%.3g", bytes);
          return errorStatus("instruction '" + i.name() + "' needs " + size + " bytes at index " +
                             shapeIndexToString(index) + ", more than 2^50: too many to assign", i.loc());
        }
        int id = shared(i, index, static_cast<int64_t>(bytes));
        if (id < 0) {
          BufferKind kind = i.opcode() == Opcode::kParameter  ? BufferKind::kParameter
                            : i.opcode() == Opcode::kConstant ? BufferKind::kConstant
                                                              : BufferKind::kArena;
          id = newBuffer(i, index, kind, static_cast<int64_t>(bytes), step);
        }
        mine.push_back({index, id});
      }
    }
    return okStatus();
  }

  // The operand buffer that `i`'s leaf `index` names (step 2), or -1.
  int shared(const Instruction& i, const ShapeIndex& index, int64_t bytes) const {
    if (!forwards(i, options_) || i.operandCount() == 0) return -1;
    int id = -1;
    if (i.opcode() == Opcode::kTuple) {
      if (index.empty() || index[0] >= i.operandCount()) return -1;
      id = lookup(i.operand(static_cast<int>(index[0])), ShapeIndex(index.begin() + 1, index.end()));
    } else if (i.opcode() == Opcode::kGetTupleElement) {
      ShapeIndex from{i.attrs().getInt(AttrKey::kIndex)};
      from.insert(from.end(), index.begin(), index.end());
      id = lookup(i.operand(0), from);
    } else {
      id = lookup(i.operand(0), index);
    }
    return id >= 0 && buffers_[id].bytes == bytes ? id : -1;
  }

  void markReads(const Computation& comp, const ComputationBuffers& cb) {
    for (size_t step = 0; step < cb.schedule.size(); ++step) {
      const Instruction& i = *cb.schedule[step];
      if (forwards(i, options_)) continue;
      for (const Instruction* op : i.operands())
        for (const auto& [index, id] : leaves_.at(op)) {
          Buffer& b = buffers_[find(id)];
          b.last = std::max(b.last, static_cast<int64_t>(step));
        }
    }
    int64_t end = static_cast<int64_t>(cb.schedule.size()) - 1;
    if (comp.root())
      for (const auto& [index, id] : leaves_.at(comp.root())) buffers_[find(id)].last = end;
  }

  void updateInPlace(const ComputationBuffers& cb) {
    for (size_t step = 0; step < cb.schedule.size(); ++step) {
      const Instruction& i = *cb.schedule[step];
      if (!updatesOperandInPlace(i)) continue;
      int target = lookup(i.operand(0), {}), result = lookup(&i, {});
      if (target < 0 || result < 0 || target == result) continue;
      Buffer& t = buffers_[target];
      if (t.kind != BufferKind::kArena || t.last != static_cast<int64_t>(step) ||
          t.bytes != buffers_[result].bytes)
        continue;
      bool readElsewhere = false;  // e.g. the update is a bitcast of the operand
      for (int k = 1; k < i.operandCount(); ++k)
        for (const auto& [index, id] : leaves_.at(i.operand(k))) readElsewhere |= find(id) == target;
      if (readElsewhere) continue;
      buffers_[result].mergedInto = target;
      t.last = std::max(t.last, buffers_[result].last);
    }
  }

  void aliasOutputs(const Computation& entry) {
    if (!entry.root()) return;
    std::set<std::pair<int64_t, ShapeIndex>> taken;
    std::unordered_set<int> moved;
    auto tryAlias = [&](const Alias& a, int out) {
      if (a.parameter < 0 || a.parameter >= entry.parameterCount() || !entry.parameter(a.parameter)) return false;
      int param = lookup(entry.parameter(static_cast<int>(a.parameter)), a.parameterIndex);
      if (out < 0 || param < 0 || moved.count(out) || taken.count({a.parameter, a.parameterIndex})) return false;
      Buffer& o = buffers_[out];
      const Buffer& p = buffers_[param];
      if (o.kind != BufferKind::kArena || o.bytes != p.bytes) return false;
      bool inPlace = updatesOperandInPlace(*o.owner) && lookup(o.owner->operand(0), {}) == param;
      if (!(p.last < o.first || (p.last == o.first && inPlace))) return false;
      o.kind = BufferKind::kParameter;
      o.parameter = a.parameter;
      o.parameterIndex = a.parameterIndex;
      taken.insert({a.parameter, a.parameterIndex});
      moved.insert(out);
      return true;
    };
    for (const Alias& a : aliases_) {
      if (a.hasOutput) {
        tryAlias(a, lookup(entry.root(), a.output));
        continue;
      }
      for (const auto& [index, id] : leaves_.at(entry.root()))
        if (tryAlias(a, find(id))) break;
    }
  }

  void separateOutputs(const Computation& entry) {
    if (!entry.root()) return;
    int64_t next = 0;
    for (const auto& [index, id] : leaves_.at(entry.root())) {
      Buffer& b = buffers_[find(id)];
      if (b.kind != BufferKind::kArena || b.bytes == 0) continue;  // also a root leaf seen before
      b.kind = BufferKind::kOutput;
      b.output = next++;
    }
  }

  void placeBuffers(ComputationBuffers& cb) {
    size_t steps = cb.schedule.size();
    std::vector<std::vector<int>> starting(steps), ending(steps);
    for (size_t id = 0; id < buffers_.size(); ++id) {
      const Buffer& b = buffers_[id];
      bool placed = b.kind == BufferKind::kArena || b.kind == BufferKind::kOutput;
      if (b.mergedInto >= 0 || !placed || b.bytes == 0) continue;
      starting[b.first].push_back(static_cast<int>(id));
      ending[b.last].push_back(static_cast<int>(id));
      cb.noReuseBytes += alignUp(b.bytes);
    }
    Arena arena;
    int64_t live = 0;
    for (size_t step = 0; step < steps; ++step) {
      if (step > 0)
        for (int id : ending[step - 1]) {
          if (buffers_[id].kind == BufferKind::kArena) arena.release(buffers_[id].offset, alignUp(buffers_[id].bytes));
          live -= alignUp(buffers_[id].bytes);
        }
      for (int id : starting[step]) {
        if (buffers_[id].kind == BufferKind::kArena) buffers_[id].offset = arena.allocate(alignUp(buffers_[id].bytes));
        live += alignUp(buffers_[id].bytes);
      }
      int64_t nestedPeak = 0;
      if (std::vector<Computation*> callees = programCallees(*cb.schedule[step], options_); !callees.empty()) {
        ScratchSlot s{cb.schedule[step], 0, 0};
        for (const Computation* c : callees) {
          if (!c) continue;
          const ComputationBuffers& callee = done_.at(c);
          s.size = std::max(s.size, callee.arenaBytes);
          nestedPeak = std::max(nestedPeak, callee.peakBytes);
          cb.noReuseBytes += callee.noReuseBytes;
        }
        if (s.size > 0) {
          s.offset = arena.allocate(s.size);
          arena.release(s.offset, s.size);  // for this step only
        }
        cb.scratch.push_back(s);
      }
      cb.peakBytes = std::max(cb.peakBytes, live + nestedPeak);
    }
    cb.arenaBytes = arena.size();
  }

  // --explain=buffer-assignment: one line per buffer of `comp`, in the order
  // they come alive, saying why it lives where it does.
  void explainPlacement(const Computation& comp) {
    auto name = [&](const Buffer& b) {
      return "%" + b.owner->name() + (b.ownerIndex.empty() ? "" : shapeIndexToString(b.ownerIndex));
    };
    std::vector<int> order;
    for (size_t id = 0; id < buffers_.size(); ++id)
      if (buffers_[id].bytes > 0) order.push_back(static_cast<int>(id));
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return buffers_[a].first < buffers_[b].first; });
    for (int id : order) {
      const Buffer& b = buffers_[id];
      std::string line = name(b) + " (%" + comp.name() + ", steps " + std::to_string(b.first) + "-" +
                         std::to_string(b.last) + "): ";
      if (b.mergedInto >= 0) {
        line += "written in place into " + name(buffers_[find(id)]) + "'s buffer, whose last reader it is";
      } else if (b.kind == BufferKind::kParameter) {
        line += b.owner->opcode() == Opcode::kParameter
                    ? "the caller's memory (parameter " + std::to_string(b.parameter) + ")"
                    : "in parameter " + std::to_string(b.parameter) + "'s buffer, which the module's input_output_alias gives it";
      } else if (b.kind == BufferKind::kConstant) {
        line += "the constant's own data";
      } else if (b.kind == BufferKind::kOutput) {
        line += "a result buffer of its own, which the caller keeps";
      } else {
        const int64_t end = b.offset + alignUp(b.bytes);
        line += "arena " + std::to_string(b.offset) + "+" + std::to_string(alignUp(b.bytes)) + ", ";
        // The dead values whose memory it takes: the last to hold each byte.
        std::vector<int> dead;
        for (int other : order) {
          const Buffer& o = buffers_[other];
          if (other == id || o.mergedInto >= 0 || o.kind != BufferKind::kArena || o.last >= b.first) continue;
          if (o.offset < end && b.offset < o.offset + alignUp(o.bytes)) dead.push_back(other);
        }
        std::stable_sort(dead.begin(), dead.end(), [&](int x, int y) { return buffers_[x].last > buffers_[y].last; });
        std::vector<std::pair<int64_t, int64_t>> covered;  // by later holders
        std::vector<std::string> before;
        for (int other : dead) {
          const Buffer& o = buffers_[other];
          int64_t from = std::max(o.offset, b.offset), to = std::min(o.offset + alignUp(o.bytes), end);
          for (bool grew = true; grew;) {  // what later holders cover of [from, to), from the left
            grew = false;
            for (const auto& [lo, hi] : covered)
              if (lo <= from && from < hi) from = hi, grew = true;
          }
          if (from < to) before.push_back(name(o) + " (dead after step " + std::to_string(o.last) + ")");
          covered.emplace_back(std::max(o.offset, b.offset), std::min(o.offset + alignUp(o.bytes), end));
        }
        if (before.empty()) {
          line += "new memory: no dead value's memory fits it";
        } else {
          line += "reusing the memory of ";
          for (size_t k = 0; k < before.size(); ++k) line += (k ? ", " : "") + before[k];
        }
      }
      explain("buffer-assignment", line);
    }
  }

  void writeSlots(ComputationBuffers& cb) {
    for (const Instruction* i : cb.schedule) {
      cb.firstSlot_[i] = cb.slots.size();
      for (const auto& [index, id] : leaves_.at(i)) {
        const Buffer& b = buffers_[find(id)];
        BufferSlot s;
        s.instruction = i;
        s.index = index;
        s.kind = b.kind;
        s.bytes = b.bytes;
        if (b.kind == BufferKind::kArena) {
          s.offset = b.offset;
          s.allocatedSize = alignUp(b.bytes);
        }
        s.parameter = b.parameter;
        s.parameterIndex = b.parameterIndex;
        s.output = b.output;
        s.owner = b.owner;
        s.ownerIndex = b.ownerIndex;
        s.firstStep = b.first;
        s.lastStep = b.last;
        cb.slots.push_back(std::move(s));
      }
    }
  }

  const Module& module_;
  BufferAssignmentOptions options_;
  std::vector<Alias> aliases_;
  std::unordered_map<const Computation*, ComputationBuffers> done_;
  std::unordered_set<const Computation*> inProgress_;
  // Of the computation being assigned:
  std::vector<Buffer> buffers_;
  std::unordered_map<const Instruction*, std::vector<std::pair<ShapeIndex, int>>> leaves_;
};

const BufferSlot* ComputationBuffers::find(const Instruction& instr, const ShapeIndex& index) const {
  auto it = firstSlot_.find(&instr);
  if (it == firstSlot_.end()) return nullptr;
  for (size_t k = it->second; k < slots.size() && slots[k].instruction == &instr; ++k)
    if (slots[k].index == index) return &slots[k];
  return nullptr;
}

const ComputationBuffers* BufferAssignment::of(const Computation& comp) const {
  for (const ComputationBuffers& c : computations)
    if (c.computation == &comp) return &c;
  return nullptr;
}

StatusOr<BufferAssignment> assignBuffers(const Module& module, const BufferAssignmentOptions& options) {
  return BufferAssigner(module, options).run();
}

std::string formatBufferAssignment(const BufferAssignment& a) {
  char line[512];
  std::string out;
  auto value = [](const Instruction* i, const ShapeIndex& index) {
    return "%" + i->name() + (index.empty() ? "" : shapeIndexToString(index));
  };
  std::snprintf(line, sizeof line,
                "buffer assignment: arena %lld bytes, peak %lld bytes live, %lld bytes without reuse\n",
                static_cast<long long>(a.arenaBytes()), static_cast<long long>(a.peakBytes()),
                static_cast<long long>(a.noReuseBytes()));
  out += line;
  for (const ComputationBuffers& c : a.computations) {
    std::snprintf(line, sizeof line, "computation %%%s: arena %lld, peak %lld, no reuse %lld\n",
                  c.computation->name().c_str(), static_cast<long long>(c.arenaBytes),
                  static_cast<long long>(c.peakBytes), static_cast<long long>(c.noReuseBytes));
    out += line;
    for (const BufferSlot& s : c.slots) {
      std::string where;
      switch (s.kind) {
        case BufferKind::kArena:
          where = "arena " + std::to_string(s.offset) + "+" + std::to_string(s.allocatedSize);
          break;
        case BufferKind::kParameter:
          where = "parameter " + std::to_string(s.parameter) +
                  (s.parameterIndex.empty() ? "" : shapeIndexToString(s.parameterIndex));
          break;
        case BufferKind::kConstant:
          where = "constant";
          break;
        case BufferKind::kOutput:
          where = "output " + std::to_string(s.output);
          break;
      }
      if (s.owner != s.instruction || s.ownerIndex != s.index) where += " (buffer of " + value(s.owner, s.ownerIndex) + ")";
      std::snprintf(line, sizeof line, "  %-32s %10lld bytes  %-40s steps %lld-%lld\n",
                    value(s.instruction, s.index).c_str(), static_cast<long long>(s.bytes), where.c_str(),
                    static_cast<long long>(s.firstStep), static_cast<long long>(s.lastStep));
      out += line;
    }
    for (const ScratchSlot& s : c.scratch) {
      std::snprintf(line, sizeof line, "  scratch of %-21s %10lld bytes  arena %lld+%lld\n",
                    value(s.instruction, {}).c_str(), static_cast<long long>(s.size),
                    static_cast<long long>(s.offset), static_cast<long long>(s.size));
      out += line;
    }
  }
  return out;
}

// The pass: the analysis alone, run for its checks; hlo-opt prints the
// report when this pass is in the list.
bool runBufferAssignment(Module& module) {
  BufferAssignmentOptions options;
  options.explain = explaining("buffer-assignment");
  (void)assignBuffers(module, options);
  return false;
}

}  // namespace hlo
