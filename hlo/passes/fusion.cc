// fusion: producer–consumer fusion as XLA does it, written into the IR. A
// group of instructions becomes one `fusion` instruction that calls a new
// fused computation (`%fusion = f32[] fusion(%x, %y), kind=kInput,
// calls=%fused_computation`), so every engine, the interpreter included, runs
// the fused module; a backend emits one kernel per fusion.
//
// Algorithm, in each computation that runs as a program (ENTRY, while bodies
// and conditions, conditional branches, call targets):
//   1. Visit the instructions consumers first (reverse definition order). One
//      that may root a fusion (roleOf in fusion_rules.h, from the opcode
//      table's categories: elementwise, cheap data movement, reduce,
//      reduce-window) starts a group.
//   2. Grow the group over its members' operands, latest first, so every user
//      inside the group is decided before its producer. A fusible producer
//      joins when either every use of it is by a member that goes away with
//      the fusion (it is moved), or copying it costs little (it is copied;
//      the original stays for its other users): it is cheap and reads at most
//      one full-size operand, as XLA's "effectively unary" rule has it, so a
//      chain of binary ops (a residual stream) is not copied again and again.
//      Expensive producers (transcendentals, divide, ...) are never copied,
//      nor fused where a member reads each of their elements many times
//      (broadcast, reduce-window, a scalar read by every element) — except
//      through a row broadcast, whose operand the kernel computes once per
//      row (row fusion, fusion_rules.h). A reduction joins as a producer
//      only that way: reduced along the last dimension, every use of it in
//      the group read once per row of the root's output, none outside
//      (softmax and layer norm become one kernel each). The group tracks how
//      the kernel will read each member (RowReading) to decide this.
//   3. A group of two or more becomes a fusion: its outside operands, in
//      definition order, are the fusion's operands and the fused
//      computation's `param_0`, `param_1`, ...; kind=kInput when rooted at a
//      reduce or reduce-window, else kLoop. Members nothing reads any more are
//      removed.
//   4. Sibling multi-output fusion: the fusions (and lone elementwise or
//      reduce ops) that read the same non-scalar value merge into one fusion
//      with a tuple root, read through get-tuple-element, when they iterate
//      over the same shape (same output dimensions; for reductions the same
//      input dimensions and reduced dimensions) and neither reaches the
//      other, which would make a cycle. Copies of one producer that several
//      siblings carry become one.
//
// Cycles: steps 2–3 cannot make one. A moved producer has no user outside the
// group, so no path leaves the group and comes back; a copied producer stays
// where it is and the fusion only reads the copy's operands. Step 4 checks.
//
// Left alone: instructions with control edges; parameters, non-scalar
// constants (read, not recomputed), tuple and get-tuple-element; existing
// fusions (nothing is fused into or out of them); dot, convolution and the
// other linear algebra (separate kernels; no kOutput fusion); gather,
// scatter and dynamic-update-slice (indexed or in-place memory access); map
// (calls a computation per element); sort, while, conditional, call,
// custom-call, collectives, async, send/recv, rng and everything else that is
// not elementwise, data movement or a reduction; reducers and other applied
// computations. No fusion takes more than kMaxOperands operands and outputs,
// nor more than kMaxInstructions instructions: LLVM's time on one kernel
// grows faster than its length, so a very long chain (an unrolled graph)
// becomes several kernels.
// A reduction feeds another op inside a fusion only by row fusion; otherwise
// it roots one.
#include <algorithm>
#include <map>
#include <optional>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "hlo/passes/explain.h"
#include "hlo/passes/fusion_rules.h"
#include "hlo/passes/pass.h"
#include "hlo/passes/pass_util.h"

namespace hlo {
namespace {

using fusion::duplicable;
using fusion::isExpensive;
using fusion::rereads;
using fusion::Role;
using fusion::roleOf;
using fusion::RowReading;

constexpr size_t kMaxOperands = 96;  // operands plus outputs, XLA's GPU limit
constexpr size_t kMaxInstructions = 2000;

bool before(const Instruction* a, const Instruction* b) { return a->id() < b->id(); }

// The fusion pass within one computation.
class Fuser {
 public:
  Fuser(Module& module, Computation& comp, int& suffix)
      : module_(module), comp_(comp), names_(comp), suffix_(suffix) {}

  bool run() {
    // The walk and the cycle check read ids as a topological order; the
    // parser gives one, and sorting keeps an order that already is one.
    (void)comp_.sortTopologically();
    std::vector<Instruction*> order;
    for (const auto& i : comp_.instructions()) order.push_back(i.get());
    alive_.insert(order.begin(), order.end());
    explaining_ = explaining("fusion");
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      if (!alive_.count(*it)) continue;
      std::string why;
      if (roleOf(**it, explaining_ ? &why : nullptr) == Role::kNone) {
        Opcode op = (*it)->opcode();
        if (explaining_ && op != Opcode::kParameter && op != Opcode::kTuple && op != Opcode::kGetTupleElement)
          say(**it, "not fused: " + why);
        continue;
      }
      Group g = grow(*it);
      if (g.members.size() > 1) {
        Instruction* fusion = materialize(g);
        if (explaining_)
          say(*fusion, std::string(fusion->attrs().getString(AttrKey::kKind)) + " fusion of %" + g.members[0]->name() +
                           " and " + std::to_string(g.members.size() - 1) + " producer" +
                           (g.members.size() > 2 ? "s" : ""));
      } else if (explaining_ && !(*it)->operands().empty()) {
        say(**it, "roots no fusion: no producer may join it");
      }
    }
    if (changed_) (void)comp_.sortTopologically();  // place the appended fusions
    mergeSiblings();
    comp_.removeDetached();
    return changed_;
  }

 private:
  // One line of --explain=fusion, about `i`.
  void say(const Instruction& i, const std::string& line) { explain("fusion", "%" + i.name() + " " + line); }

  struct Group {
    std::vector<Instruction*> members;              // the root first
    std::unordered_map<Instruction*, bool> moved;   // else copied
    std::unordered_map<Instruction*, bool> reread;  // read many times an element
    std::unordered_map<Instruction*, RowReading> reading;  // by a row-looping kernel
    std::unordered_set<Instruction*> external;      // operands from outside
    std::vector<int64_t> dims;                      // the root's output dimensions
    std::unordered_set<Instruction*> refused;       // producers said no to (--explain)
    bool has(Instruction* i) const { return moved.count(i) != 0; }
    void add(Instruction* i, bool isMoved, bool isReread, RowReading r) {
      members.push_back(i);
      moved[i] = isMoved;
      reread[i] = isReread;
      reading[i] = r;
      external.erase(i);
      for (Instruction* op : i->operands())
        if (!has(op)) external.insert(op);
    }
  };

  // Steps 1–2: the group rooted at `root`, producers taken latest first.
  Group grow(Instruction* root) {
    Group g;
    if (root->shape().isArray()) g.dims = root->shape().dims();
    g.add(root, true, false, fusion::rowReading(*root, g.dims, true, {}));
    std::priority_queue<Instruction*, std::vector<Instruction*>, decltype(&before)> frontier(
        &before);
    for (Instruction* op : root->operands()) frontier.push(op);
    while (!frontier.empty()) {
      Instruction* p = frontier.top();
      frontier.pop();
      if (g.has(p) || !mayJoin(g, *p)) continue;
      for (Instruction* op : p->operands()) frontier.push(op);
    }
    return g;
  }

  bool mayJoin(Group& g, Instruction& p) {
    Role role = roleOf(p);
    if (role == Role::kNone) return false;  // said when it was visited
    // A refusal, said once per group and producer.
    auto refuse = [&](const std::string& why) {
      if (explaining_ && g.refused.insert(&p).second)
        say(p, "not fused into %" + g.members[0]->name() + ": " + why);
      return false;
    };
    if (g.members.size() >= kMaxInstructions)
      return refuse("the fusion has " + std::to_string(kMaxInstructions) + " instructions, the most one may have");
    bool copied = &p == comp_.root(), reread = false;
    std::vector<std::pair<const Instruction*, RowReading>> inside;  // users in the group
    for (Instruction* u : p.users()) {
      if (!g.has(u)) {
        copied = true;
        continue;
      }
      copied |= !g.moved[u];
      // A row broadcast in the output's row reads p once per row, not per element.
      bool oncePerRow = fusion::isRowBroadcast(*u) && g.reading[u] == RowReading::kInRow;
      reread |= g.reread[u] || (rereads(*u, p) && !oncePerRow);
      inside.push_back({u, g.reading[u]});
    }
    RowReading reading = fusion::rowReading(p, g.dims, false, inside);
    if (role == Role::kRootOnly) {
      if (copied) return refuse("a reduction, read outside the fusion too");
      if (!fusion::rowFusibleReduce(p))
        return refuse("a reduction feeds a fusion only along the last dimension, by a reducer of one op");
      if (reading != RowReading::kOncePerRow) return refuse("a reduction feeds a fusion only read once per row");
    }
    if (copied && !duplicable(p))
      return refuse("read outside the fusion too, and too costly to copy (it is expensive or reads "
                    "more than one full-size operand)");
    if (reread && isExpensive(p)) return refuse("expensive, and the fusion would compute it again for each read");
    std::unordered_set<Instruction*> added;
    for (Instruction* op : p.operands())
      if (!g.has(op) && !g.external.count(op)) added.insert(op);
    if (g.external.size() + added.size() > kMaxOperands)  // less p, plus output
      return refuse("the fusion would take more than " + std::to_string(kMaxOperands) + " operands and outputs");
    g.add(&p, !copied, reread, reading);
    if (explaining_)
      say(p, "fused into %" + g.members[0]->name() + ": " +
                 (role == Role::kRootOnly ? "a row reduction, read once per row"
                  : copied                ? "copied, cheap to compute again; its other users keep the original"
                                          : "moved, every user of it is in the fusion"));
    return true;
  }

  // Step 3.
  Instruction* materialize(const Group& g) {
    Instruction* root = g.members[0];
    std::vector<Instruction*> operands(g.external.begin(), g.external.end());
    std::sort(operands.begin(), operands.end(), before);
    std::vector<Instruction*> members = g.members;
    std::sort(members.begin(), members.end(), before);
    auto [body, inBody] = newBody(operands);
    NameUniquer names(*body);
    for (Instruction* m : members) {
      std::vector<Instruction*> ops;
      for (Instruction* op : m->operands()) ops.push_back(inBody.at(op));
      inBody[m] = cloneInstruction(*body, *m, ops, names.make(m->name()));
    }
    body->setRoot(inBody.at(root));
    bool input = opcodeCategory(root->opcode()) == OpCategory::kReduction;
    Instruction* fusion = addFusion(root->shape(), operands, body, input, root->loc());
    comp_.replaceAllUses(root, fusion);
    for (auto it = members.rbegin(); it != members.rend(); ++it)
      if ((*it)->users().empty() && isRemovableWhenUnused(**it, effects_)) remove(*it);
    return fusion;
  }

  // A fused computation with one parameter per operand; maps each operand to
  // its parameter.
  std::pair<Computation*, std::unordered_map<const Instruction*, Instruction*>> newBody(
      const std::vector<Instruction*>& operands) {
    std::string name;
    do {
      name = "fused_computation" + (suffix_ ? "." + std::to_string(suffix_) : "");
      ++suffix_;
    } while (module_.find(name));
    Computation* body = module_.addComputationBefore(name, &comp_);
    body->setExecutionThread(comp_.executionThread());
    std::unordered_map<const Instruction*, Instruction*> inBody;
    for (size_t k = 0; k < operands.size(); ++k) {
      auto p = std::make_unique<Instruction>(Opcode::kParameter, "param_" + std::to_string(k),
                                             operands[k]->shape());
      p->setParameterNumber(static_cast<int64_t>(k));
      inBody[operands[k]] = body->add(std::move(p));
    }
    return {body, std::move(inBody)};
  }

  Instruction* addFusion(const Shape& shape, const std::vector<Instruction*>& operands,
                         Computation* body, bool input, SourceLoc loc) {
    Instruction* fusion =
        comp_.add(Opcode::kFusion, fresh("fusion", fusionCount_), shape, operands);
    fusion->attrs().setString(AttrKey::kKind, input ? "kInput" : "kLoop");
    fusion->attrs().setComputation(AttrKey::kCalls, body);
    fusion->setLoc(loc);
    ours_.insert(fusion);
    alive_.insert(fusion);
    changed_ = true;
    return fusion;
  }

  void remove(Instruction* i) {
    alive_.erase(i);
    ours_.erase(i);
    multi_.erase(i);
    comp_.detach(i);  // removed from the list at the next sort, all at once
  }

  // Step 4.
  struct Key {
    bool reduction;
    std::vector<int64_t> dims, reduced;
    bool operator==(const Key&) const = default;
  };

  Computation* bodyOf(const Instruction& fusion) const {
    return fusion.attrs().getComputation(AttrKey::kCalls);
  }
  bool multiOutput(const Instruction& i) const { return multi_.count(&i) != 0; }
  size_t outputCount(const Instruction& i) const {
    return multiOutput(i) ? static_cast<size_t>(bodyOf(i)->root()->operandCount()) : 1;
  }

  // The iteration space of a sibling candidate; nullopt when it is none.
  std::optional<Key> siblingKey(const Instruction& i) const {
    const Instruction* hero = &i;
    if (ours_.count(&i)) {
      hero = bodyOf(i)->root();
      if (multiOutput(i)) hero = hero->operand(0);
    } else if (roleOf(i) == Role::kNone ||
               (opcodeCategory(i.opcode()) != OpCategory::kElementwise &&
                i.opcode() != Opcode::kReduce)) {
      return std::nullopt;
    }
    if (!hero->shape().isArray() || hero->opcode() == Opcode::kReduceWindow) return std::nullopt;
    if (hero->opcode() == Opcode::kReduce)
      return Key{true, hero->operand(0)->shape().dims(),
                 hero->attrs().getInts(AttrKey::kDimensions)};
    return Key{false, hero->shape().dims(), {}};
  }

  // Marks, by instruction id, what `from` reaches through uses and control
  // edges, up to id `limit`; ids are a topological order here.
  static void markReached(Instruction* from, int64_t limit, std::vector<char>& reached) {
    std::vector<Instruction*> stack{from};
    while (!stack.empty()) {
      Instruction* x = stack.back();
      stack.pop_back();
      for (const auto* next : {&x->users(), &x->controlSuccessors()})
        for (Instruction* y : *next)
          if (y->id() <= limit && !reached[y->id()]) {
            reached[y->id()] = 1;
            stack.push_back(y);
          }
    }
  }

  // Whether `c` may join the sibling group `group`: the same iteration space,
  // within the operand limit.
  bool mayJoinSiblings(const std::vector<Instruction*>& group, Instruction* c) const {
    if (!(siblingKey(*group[0]) == siblingKey(*c))) return false;
    std::unordered_set<Instruction*> operands(c->operands().begin(), c->operands().end());
    size_t outputs = outputCount(*c);
    for (Instruction* g : group) {
      operands.insert(g->operands().begin(), g->operands().end());
      outputs += outputCount(*g);
    }
    return operands.size() + outputs <= kMaxOperands;
  }

  // Groups the readers of each value, earliest first; a reader joins a group
  // when no member reaches it (it reaches no member: it comes later). That
  // pairwise check is enough: a cycle through the merged fusion would have to
  // leave one member and come back to another.
  void mergeSiblings() {
    std::vector<Instruction*> order;
    for (const auto& i : comp_.instructions()) order.push_back(i.get());
    for (Instruction* shared : order) {
      if (!alive_.count(shared) || shared->opcode() == Opcode::kConstant ||
          !shared->shape().isArray() || shared->shape().isScalar())
        continue;
      std::vector<Instruction*> siblings;
      for (Instruction* u : shared->users())
        if (std::find(siblings.begin(), siblings.end(), u) == siblings.end() && siblingKey(*u))
          siblings.push_back(u);
      // merge() keeps the relative order of the instructions it leaves.
      std::sort(siblings.begin(), siblings.end(), before);
      for (size_t i = 0; i + 1 < siblings.size(); ++i) {
        if (!siblings[i]) continue;
        std::vector<Instruction*> group{siblings[i]};
        std::vector<char> reached(comp_.instructions().size());
        int64_t limit = 0;
        for (const Instruction* s : siblings) limit = s ? std::max(limit, s->id()) : limit;
        markReached(siblings[i], limit, reached);
        for (size_t j = i + 1; j < siblings.size(); ++j)
          if (siblings[j] && !reached[siblings[j]->id()] && mayJoinSiblings(group, siblings[j])) {
            group.push_back(siblings[j]);
            markReached(siblings[j], limit, reached);
            siblings[j] = nullptr;
          }
        if (group.size() > 1) {
          if (explaining_) {
            std::string names;
            for (const Instruction* m : group) names += (names.empty() ? "%" : ", %") + m->name();
            say(*shared, "read by " + names + ": merged into one multi-output fusion (the same iteration space)");
          }
          merge(group);  // which removes the members
        }
        siblings[i] = nullptr;
      }
    }
  }

  // Merges siblings, fusions or lone instructions, into one multi-output
  // fusion whose outputs are theirs in order.
  void merge(const std::vector<Instruction*>& group) {
    bool input = siblingKey(*group[0])->reduction;
    std::vector<Instruction*> operands;
    for (Instruction* f : group)
      for (Instruction* op : f->operands())
        if (std::find(operands.begin(), operands.end(), op) == operands.end())
          operands.push_back(op);
    std::sort(operands.begin(), operands.end(), before);
    auto [body, inBody] = newBody(operands);
    NameUniquer names(*body);
    // Siblings often carry copies of one cheap producer: the merged body keeps
    // one of each (same opcode, operands, shape, attributes and literal).
    std::map<std::pair<Opcode, std::vector<Instruction*>>, std::vector<Instruction*>> made;
    auto copy = [&](const Instruction& src) {
      std::vector<Instruction*> ops;
      for (const Instruction* op : src.operands()) ops.push_back(inBody.at(op));
      std::vector<Instruction*>& same = made[{src.opcode(), ops}];
      for (Instruction* c : same)
        if (c->shape() == src.shape() && c->attrs() == src.attrs() &&
            c->hasLiteral() == src.hasLiteral() &&
            (!c->hasLiteral() || c->literal() == src.literal()))
          return c;
      same.push_back(cloneInstruction(*body, src, ops, names.make(src.name())));
      return same.back();
    };
    std::vector<Instruction*> outputs;
    for (Instruction* f : group) {
      if (!ours_.count(f)) {
        outputs.push_back(copy(*f));
        continue;
      }
      const Computation* old = bodyOf(*f);
      for (int k = 0; k < f->operandCount(); ++k)
        inBody[old->parameter(k)] = inBody.at(f->operand(k));
      for (const auto& instr : old->instructions())
        if (instr->opcode() != Opcode::kParameter &&
            !(multiOutput(*f) && instr.get() == old->root()))
          inBody[instr.get()] = copy(*instr);
      if (multiOutput(*f))
        for (const Instruction* out : old->root()->operands()) outputs.push_back(inBody.at(out));
      else
        outputs.push_back(inBody.at(old->root()));
    }
    std::vector<Shape> shapes;
    for (const Instruction* out : outputs) shapes.push_back(out->shape());
    Shape tuple = Shape::tuple(shapes);
    body->setRoot(body->add(Opcode::kTuple, names.make("tuple"), tuple, outputs));
    Instruction* fusion = addFusion(tuple, operands, body, input, group[0]->loc());
    multi_.insert(fusion);
    int64_t offset = 0;
    for (Instruction* f : group) {
      if (multiOutput(*f)) {
        for (Instruction* gte : std::vector<Instruction*>(f->users())) {
          comp_.setOperand(gte, 0, fusion);
          gte->attrs().setInt(AttrKey::kIndex, offset + gte->attrs().getInt(AttrKey::kIndex));
        }
      } else {
        Instruction* gte = comp_.add(Opcode::kGetTupleElement,
                                     fresh("get-tuple-element", gteCount_), f->shape(), {fusion});
        gte->attrs().setInt(AttrKey::kIndex, offset);
        comp_.replaceAllUses(f, gte);
      }
      offset += static_cast<int64_t>(outputCount(*f));
      Computation* old = ours_.count(f) ? bodyOf(*f) : nullptr;
      remove(f);
      if (old) module_.remove(old);
    }
    (void)comp_.sortTopologically();  // keeps ids a topological order
  }

  // `base`, `base.1`, `base.2`, ... without rescanning the taken ones.
  std::string fresh(const std::string& base, int& count) {
    int n = count++;
    return names_.make(n ? base + "." + std::to_string(n) : base);
  }

  Module& module_;
  Computation& comp_;
  NameUniquer names_;
  int& suffix_;
  bool explaining_ = false;  // hlo-opt --explain=fusion
  SideEffects effects_;
  std::unordered_set<Instruction*> alive_;        // not removed by this pass
  std::unordered_set<const Instruction*> ours_;   // fusions this pass made
  std::unordered_set<const Instruction*> multi_;  // those with a tuple of outputs
  int fusionCount_ = 0, gteCount_ = 0;            // for fresh()
  bool changed_ = false;
};

// ENTRY and the computations that control flow runs as programs; not
// reducers, fused, async or custom-call computations.
std::vector<Computation*> programComputations(const Module& module) {
  std::vector<Computation*> out, stack;
  std::unordered_set<Computation*> seen;
  if (module.entry()) stack.push_back(module.entry());
  while (!stack.empty()) {
    Computation* c = stack.back();
    stack.pop_back();
    if (!c || !seen.insert(c).second) continue;
    out.push_back(c);
    for (const auto& i : c->instructions())
      if (i->opcode() == Opcode::kWhile || i->opcode() == Opcode::kConditional ||
          i->opcode() == Opcode::kCall)
        for (Computation* callee : i->calledComputations()) stack.push_back(callee);
  }
  return out;
}

}  // namespace

bool runFusion(Module& module) {
  bool changed = false;
  int suffix = 0;
  for (Computation* comp : programComputations(module))
    changed |= Fuser(module, *comp, suffix).run();
  return changed;
}

}  // namespace hlo
