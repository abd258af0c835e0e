// Multi-device runs on the interpreter: every collective on small values
// whose results are worked out by hand from XLA's semantics
// (hlo/collectives.h), both id modes, iota groups, async forms, a malformed
// group, a failing device and devices that cannot meet.
#include <gtest/gtest.h>

#include "hlo/collectives.h"
#include "hlo/transport.h"
#include "hlo/verifier.h"
#include "interp/evaluator.h"
#include "parser/parser.h"

namespace hlo {
namespace {

using collectives::Topology;

std::unique_ptr<Module> parse(const std::string& text) {
  auto module = parseModule(text);
  EXPECT_TRUE(module.ok()) << formatError(module.status(), "test", text);
  if (!module.ok()) return nullptr;
  Status verified = verify(**module);
  EXPECT_TRUE(verified.ok()) << formatError(verified, "test", text);
  return std::move(module).value();
}

Literal lit(const std::string& text) {
  auto value = parseLiteral(text);
  EXPECT_TRUE(value.ok()) << text << ": " << value.status().message();
  return value.ok() ? std::move(value).value() : Literal();
}

// Runs `text` on every device of `topology`; device d's one argument is
// `argument(d)` (none when the entry has no parameter).
std::vector<StatusOr<Literal>> runAll(const std::string& text, Topology topology,
                                      const std::function<std::string(int64_t)>& argument = nullptr,
                                      interp::Options options = {}) {
  std::unique_ptr<Module> module = parse(text);
  if (!module) return {};
  return collectives::runOnDevices(topology, [&](collectives::Participant& me) -> StatusOr<Literal> {
    std::vector<Literal> args;
    if (argument) args.push_back(lit(argument(me.device)));
    interp::Options mine = options;
    mine.participant = &me;
    return interp::evaluate(*module, args, mine);
  });
}

// Each device's result printed, or its error.
std::vector<std::string> printed(const std::vector<StatusOr<Literal>>& outcomes) {
  std::vector<std::string> out;
  for (const auto& o : outcomes) out.push_back(o.ok() ? o->toString() : "error: " + o.status().message());
  return out;
}

using Strings = std::vector<std::string>;

// Device d's f32[4] {10d, 10d + 1, 10d + 2, 10d + 3}.
std::string countingFrom10d(int64_t d) {
  std::string out = "f32[4] {";
  for (int64_t i = 0; i < 4; ++i) out += (i ? ", " : "") + std::to_string(10 * d + i);
  return out + "}";
}

constexpr const char* kAdd = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

TEST(Collectives, ReplicaAndPartitionIds) {
  auto outcomes = runAll(R"(
HloModule m
ENTRY e {
  r = u32[] replica-id()
  p = u32[] partition-id()
  ROOT t = (u32[], u32[]) tuple(r, p)
})",
                         Topology{2, 3});
  // Device d is replica d / 3, partition d % 3.
  EXPECT_EQ(printed(outcomes), (Strings{"(u32[] 0, u32[] 0)", "(u32[] 0, u32[] 1)", "(u32[] 0, u32[] 2)",
                                        "(u32[] 1, u32[] 0)", "(u32[] 1, u32[] 1)", "(u32[] 1, u32[] 2)"}));
}

TEST(Collectives, AllReduceSumsEveryReplica) {
  auto outcomes = runAll(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(x), to_apply=add
})",
                         Topology{4, 1}, [](int64_t d) { return "f32[2] {" + std::to_string(d) + ", " + std::to_string(10 * d) + "}"; });
  // {0+1+2+3, 0+10+20+30} on every device.
  EXPECT_EQ(printed(outcomes), (Strings(4, "f32[2] {6, 60}")));
}

TEST(Collectives, AllReduceWithinGroups) {
  auto outcomes = runAll(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  x = f32[] parameter(0)
  ROOT r = f32[] all-reduce(x), replica_groups={{0,2},{1,3}}, to_apply=add
})",
                         Topology{4, 1}, [](int64_t d) { return "f32[] " + std::to_string(1 << d); });
  // Devices 0 and 2: 1 + 4; devices 1 and 3: 2 + 8.
  EXPECT_EQ(printed(outcomes), (Strings{"f32[] 5", "f32[] 10", "f32[] 5", "f32[] 10"}));
}

TEST(Collectives, ReductionFoldsFromTheLeftInGroupOrder) {
  auto outcomes = runAll(R"(
HloModule m
sub {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] subtract(a, b)
}
ENTRY e {
  x = f32[] parameter(0)
  ROOT r = f32[] all-reduce(x), replica_groups={{2,0,1}}, to_apply=sub
})",
                         Topology{3, 1}, [](int64_t d) { return "f32[] " + std::to_string(d + 1); });
  // Values 1, 2, 3 on devices 0, 1, 2; in group order 3, 1, 2: (3 - 1) - 2.
  EXPECT_EQ(printed(outcomes), (Strings(3, "f32[] 0")));
}

TEST(Collectives, CrossReplicaGroupsRepeatPerPartition) {
  // No channel_id: replica ids; on 2 replicas x 2 partitions the group {0,1}
  // is devices {0,2} (partition 0) and {1,3} (partition 1).
  auto outcomes = runAll(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  x = f32[] parameter(0)
  ROOT r = f32[] all-reduce(x), replica_groups={{0,1}}, to_apply=add
})",
                         Topology{2, 2}, [](int64_t d) { return "f32[] " + std::to_string(1 << d); });
  EXPECT_EQ(printed(outcomes), (Strings{"f32[] 5", "f32[] 10", "f32[] 5", "f32[] 10"}));
}

TEST(Collectives, ChannelIdGroupsReplicasWithAllTheirPartitions) {
  // channel_id without use_global_device_ids: replica group {0} is devices
  // {0,1}, {1} is {2,3}.
  auto outcomes = runAll(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  x = f32[] parameter(0)
  ROOT r = f32[] all-reduce(x), channel_id=1, replica_groups={{0},{1}}, to_apply=add
})",
                         Topology{2, 2}, [](int64_t d) { return "f32[] " + std::to_string(1 << d); });
  EXPECT_EQ(printed(outcomes), (Strings{"f32[] 3", "f32[] 3", "f32[] 12", "f32[] 12"}));
}

TEST(Collectives, GlobalDeviceIdsInIotaForm) {
  // [2,2]<=[2,2]T(1,0): iota [[0,1],[2,3]] transposed, groups {0,2},{1,3}.
  auto outcomes = runAll(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  x = f32[] parameter(0)
  ROOT r = f32[] all-reduce(x), channel_id=1, replica_groups=[2,2]<=[2,2]T(1,0), use_global_device_ids=true, to_apply=add
})",
                         Topology{1, 4}, [](int64_t d) { return "f32[] " + std::to_string(1 << d); });
  EXPECT_EQ(printed(outcomes), (Strings{"f32[] 5", "f32[] 10", "f32[] 5", "f32[] 10"}));
}

TEST(Collectives, AllGatherConcatenatesInGroupOrder) {
  auto outcomes = runAll(R"(
HloModule m
ENTRY e {
  x = f32[1,2] parameter(0)
  ROOT g = f32[1,4] all-gather(x), replica_groups={{1,0},{3,2}}, dimensions={1}
})",
                         Topology{4, 1}, [](int64_t d) { return "f32[1,2] {{" + std::to_string(d) + ", " + std::to_string(10 * d) + "}}"; });
  EXPECT_EQ(printed(outcomes), (Strings{"f32[1,4] {{1, 10, 0, 0}}", "f32[1,4] {{1, 10, 0, 0}}",
                                        "f32[1,4] {{3, 30, 2, 20}}", "f32[1,4] {{3, 30, 2, 20}}"}));
}

TEST(Collectives, ReduceScatterGivesEachDeviceItsPiece) {
  auto outcomes = runAll(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  x = f32[4] parameter(0)
  ROOT r = f32[2] reduce-scatter(x), replica_groups={{0,1}}, dimensions={0}, to_apply=add
})",
                         Topology{2, 1}, countingFrom10d);
  // Sum {10, 12, 14, 16}: device 0 the first half, device 1 the second.
  EXPECT_EQ(printed(outcomes), (Strings{"f32[2] {10, 12}", "f32[2] {14, 16}"}));
}

TEST(Collectives, AllToAllSplitsAndConcatenates) {
  auto outcomes = runAll(R"(
HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  ROOT a = f32[4] all-to-all(x), replica_groups={{0,1}}, dimensions={0}
})",
                         Topology{2, 1}, countingFrom10d);
  // Device j receives piece j of each device, in device order.
  EXPECT_EQ(printed(outcomes), (Strings{"f32[4] {0, 1, 10, 11}", "f32[4] {2, 3, 12, 13}"}));
}

TEST(Collectives, AllToAllTupleFormSendsOperandJToDeviceJ) {
  auto outcomes = runAll(R"(
HloModule m
ENTRY e {
  x = (f32[1], f32[1]) parameter(0)
  a = f32[1] get-tuple-element(x), index=0
  b = f32[1] get-tuple-element(x), index=1
  ROOT t = (f32[1], f32[1]) all-to-all(a, b), replica_groups={{0,1}}
})",
                         Topology{2, 1}, [](int64_t d) {
                           return "(f32[1] {" + std::to_string(10 * d) + "}, f32[1] {" + std::to_string(10 * d + 1) + "})";
                         });
  EXPECT_EQ(printed(outcomes), (Strings{"(f32[1] {0}, f32[1] {10})", "(f32[1] {1}, f32[1] {11})"}));
}

TEST(Collectives, RaggedAllToAllPlacesEachDevicesRows) {
  // Device r's input is {10r, ..., 10r + 7}; it sends 2 rows to each device
  // j, from row 4j, to row 4r of j's output; the rest stays -1.
  auto outcomes = runAll(R"(
HloModule m
ENTRY e {
  p = f32[8] parameter(0)
  output = f32[8] constant({-1, -1, -1, -1, -1, -1, -1, -1})
  input_offsets = s32[2] constant({0, 4})
  send_sizes = s32[2] constant({2, 2})
  id = u32[] replica-id()
  four = u32[] constant(4)
  at = u32[] multiply(id, four)
  at32 = s32[] convert(at)
  output_offsets = s32[2] broadcast(at32), dimensions={}
  recv_sizes = s32[2] constant({2, 2})
  ROOT r = f32[8] ragged-all-to-all(p, output, input_offsets, send_sizes, output_offsets, recv_sizes), replica_groups={{0,1}}
})",
                         Topology{2, 1}, [](int64_t d) {
                           std::string v = "f32[8] {";
                           for (int i = 0; i < 8; ++i) v += (i ? ", " : "") + std::to_string(10 * d + i);
                           return v + "}";
                         });
  EXPECT_EQ(printed(outcomes), (Strings{"f32[8] {0, 1, -1, -1, 10, 11, -1, -1}", "f32[8] {4, 5, -1, -1, 14, 15, -1, -1}"}));
}

TEST(Collectives, PermuteByReplicaAndByPartition) {
  const char* byReplica = R"(
HloModule m
ENTRY e {
  x = f32[] parameter(0)
  ROOT p = f32[] collective-permute(x), source_target_pairs={{0,1},{1,2}}
})";
  // Device 0 is no target: zeros.
  EXPECT_EQ(printed(runAll(byReplica, Topology{3, 1}, [](int64_t d) { return "f32[] " + std::to_string(d + 5); })),
            (Strings{"f32[] 0", "f32[] 5", "f32[] 6"}));
  const char* byPartition = R"(
HloModule m
ENTRY e {
  x = f32[] parameter(0)
  ROOT p = f32[] collective-permute(x), channel_id=1, source_target_pairs={{0,1},{1,0}}
})";
  // Partitions swap within each replica: devices 0<->1 and 2<->3.
  EXPECT_EQ(printed(runAll(byPartition, Topology{2, 2}, [](int64_t d) { return "f32[] " + std::to_string(d + 5); })),
            (Strings{"f32[] 6", "f32[] 5", "f32[] 8", "f32[] 7"}));
}

TEST(Collectives, BroadcastFromTheGroupsFirstDevice) {
  auto outcomes = runAll(R"(
HloModule m
ENTRY e {
  x = f32[] parameter(0)
  ROOT b = f32[] collective-broadcast(x), replica_groups={{1,0},{2,3}}
})",
                         Topology{4, 1}, [](int64_t d) { return "f32[] " + std::to_string(d + 5); });
  EXPECT_EQ(printed(outcomes), (Strings{"f32[] 6", "f32[] 6", "f32[] 7", "f32[] 7"}));
}

TEST(Collectives, AsyncForms) {
  auto outcomes = runAll(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  x = f32[1] parameter(0)
  rs = f32[1] all-reduce-start(x), replica_groups={{0,1}}, to_apply=add
  r = f32[1] all-reduce-done(rs)
  gs = (f32[1], f32[2]) all-gather-start(x), replica_groups={{0,1}}, dimensions={0}
  g = f32[2] all-gather-done(gs)
  ps = (f32[1], f32[1], u32[], u32[]) collective-permute-start(x), source_target_pairs={{0,1},{1,0}}
  p = f32[1] collective-permute-done(ps)
  ROOT t = (f32[1], f32[2], f32[1]) tuple(r, g, p)
})",
                         Topology{2, 1}, [](int64_t d) { return "f32[1] {" + std::to_string(d + 3) + "}"; });
  EXPECT_EQ(printed(outcomes), (Strings{"(f32[1] {7}, f32[2] {3, 4}, f32[1] {4})",
                                        "(f32[1] {7}, f32[2] {3, 4}, f32[1] {3})"}));
}

TEST(Collectives, CollectiveInALoopMeetsOncePerIteration) {
  auto outcomes = runAll(std::string("HloModule m\n") + kAdd + R"(
cond {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  v1 = f32[] all-reduce(v), to_apply=add
  ROOT t = (s32[], f32[]) tuple(i1, v1)
}
ENTRY e {
  x = f32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[]) tuple(zero, x)
  w = (s32[], f32[]) while(init), condition=cond, body=body
  ROOT v = f32[] get-tuple-element(w), index=1
})",
                         Topology{2, 1}, [](int64_t d) { return "f32[] " + std::to_string(d + 1); });
  // 1 + 2 = 3, then 6, then 12.
  EXPECT_EQ(printed(outcomes), (Strings(2, "f32[] 12")));
}

TEST(Collectives, OneChannelMeetsAcrossBranches) {
  // Replica 0 takes branch 0, replica 1 branch 1; their all-reduces share
  // channel_id 7, so they meet (as XLA matches them): 1 + 2 on both.
  auto outcomes = runAll(std::string("HloModule m\n") + kAdd + R"(
b0 {
  x = f32[] parameter(0)
  ROOT r0 = f32[] all-reduce(x), channel_id=7, replica_groups={{0,1}}, to_apply=add
}
b1 {
  x = f32[] parameter(0)
  ROOT r1 = f32[] all-reduce(x), channel_id=7, replica_groups={{0,1}}, to_apply=add
}
ENTRY e {
  x = f32[] parameter(0)
  id = u32[] replica-id()
  i = s32[] convert(id)
  ROOT c = f32[] conditional(i, x, x), branch_computations={b0, b1}
})",
                         Topology{2, 1}, [](int64_t d) { return "f32[] " + std::to_string(d + 1); });
  EXPECT_EQ(printed(outcomes), (Strings(2, "f32[] 3")));
}

TEST(Collectives, ReducerInAWiderTypeThanTheValues) {
  // bf16 values through an f32 add: 256 + 1 = 257 in f32, which rounds to
  // 256 in bf16 (8 significant bits, ties to even), then + 1 again = 256.
  auto outcomes = runAll(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  x = bf16[] parameter(0)
  ROOT r = bf16[] all-reduce(x), to_apply=add
})",
                         Topology{3, 1}, [](int64_t d) { return d == 0 ? "bf16[] 256" : "bf16[] 1"; });
  EXPECT_EQ(printed(outcomes), (Strings(3, "bf16[] 256")));
}

TEST(Collectives, IntegerReductionsWrapAndCompare) {
  auto outcomes = runAll(R"(
HloModule m
mx {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(b, a)
}
sum {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY e {
  x = s32[2] parameter(0)
  m = s32[2] all-reduce(x), to_apply=mx
  s = s32[2] all-reduce(x), to_apply=sum
  ROOT t = (s32[2], s32[2]) tuple(m, s)
})",
                         Topology{2, 1}, [](int64_t d) {
                           return d == 0 ? "s32[2] {2147483647, -5}" : "s32[2] {1, -7}";
                         });
  // max {2147483647, -5}; the sum wraps: 2147483647 + 1 = -2147483648.
  EXPECT_EQ(printed(outcomes), (Strings(2, "(s32[2] {2147483647, -5}, s32[2] {-2147483648, -12})")));
}

TEST(Collectives, SendAndRecvAroundARing) {
  // Every device posts its receive, then sends to the next: device d gets
  // device d-1's value (a device waiting in recv would deadlock here, so the
  // data arrives at recv-done). Pair 2 -> 0 is left out: device 0 gets zeros.
  auto outcomes = runAll(R"(
HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  t = token[] after-all()
  r = (f32[2], u32[], token[]) recv(t), channel_id=5, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}, {1,2}}"}
  s = (f32[2], u32[], token[]) send(x, t), channel_id=5, control-predecessors={r}, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}, {1,2}}"}
  rd = (f32[2], token[]) recv-done(r), channel_id=5
  sd = token[] send-done(s), channel_id=5
  ROOT v = f32[2] get-tuple-element(rd), index=0
})",
                         Topology{3, 1}, [](int64_t d) { return "f32[2] {" + std::to_string(d + 1) + ", 7}"; });
  EXPECT_EQ(printed(outcomes), (Strings{"f32[2] {0, 0}", "f32[2] {1, 7}", "f32[2] {2, 7}"}));
}

TEST(Collectives, DirectFoldsMatchTheReducerCalledPerElement) {
  // The same all-reduce twice: with `p0 op p1`, which is folded directly,
  // and with a copy in between, which calls the reducer per element; the
  // bits must agree (values with many digits, so every sum rounds).
  for (const char* type : {"bf16", "f16", "f32", "f64", "s32", "u64"})
    for (const char* op : {"add", "multiply", "maximum"}) {
      std::string t = type;
      std::string module = "HloModule m\n"
                           "direct {\n  a = " + t + "[] parameter(0)\n  b = " + t + "[] parameter(1)\n"
                           "  ROOT r = " + t + "[] " + op + "(a, b)\n}\n"
                           "called {\n  a = " + t + "[] parameter(0)\n  b = " + t + "[] parameter(1)\n"
                           "  c = " + t + "[] copy(a)\n  ROOT r = " + t + "[] " + op + "(c, b)\n}\n"
                           "ENTRY e {\n  x = " + t + "[5] parameter(0)\n"
                           "  d = " + t + "[5] all-reduce(x), to_apply=direct\n"
                           "  c = " + t + "[5] all-reduce(x), to_apply=called\n"
                           "  ROOT t = (" + t + "[5], " + t + "[5]) tuple(d, c)\n}\n";
      auto outcomes = runAll(module, Topology{3, 1}, [&](int64_t d) {
        bool isFloat = t[0] == 'f' || t[0] == 'b';
        std::string v = t + "[5] {";
        for (int i = 0; i < 5; ++i) {
          double x = (d + 1) * 1.37 + i * 2.71;
          v += (i ? ", " : "") + (isFloat ? std::to_string(x) : std::to_string(static_cast<int>(x * 1000)));
        }
        return v + "}";
      });
      ASSERT_EQ(outcomes.size(), 3u);
      ASSERT_TRUE(outcomes[0].ok()) << type << " " << op << ": " << outcomes[0].status().message();
      const auto& parts = outcomes[0]->tupleElements();
      EXPECT_EQ(parts[0].toString(), parts[1].toString()) << type << " " << op;
    }
}

TEST(Collectives, GroupOutOfRangeIsAnErrorNamingTheInstruction) {
  auto outcomes = runAll(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  x = f32[] parameter(0)
  ROOT r = f32[] all-reduce(x), replica_groups={{0,1,2}}, to_apply=add
})",
                         Topology{2, 1}, [](int64_t) { return "f32[] 1"; });
  for (const std::string& s : printed(outcomes))
    EXPECT_EQ(s, "error: all-reduce 'r': replica group id 2 is out of range: the run has 2 replicas "
                 "(2 replicas x 1 partition)");
}

TEST(Collectives, AFailingDeviceFailsTheOthers) {
  // Device d loops d times before the all-reduce; with at most 2 iterations
  // allowed, device 3 fails and devices 0-2 wait for it at the all-reduce.
  interp::Options options;
  options.maxWhileIterations = 2;
  auto outcomes = runAll(std::string("HloModule m\n") + kAdd + R"(
cond {
  i = u32[] parameter(0)
  r = u32[] replica-id()
  ROOT lt = pred[] compare(i, r), direction=LT
}
body {
  i = u32[] parameter(0)
  one = u32[] constant(1)
  ROOT i1 = u32[] add(i, one)
}
ENTRY e {
  zero = u32[] constant(0)
  w = u32[] while(zero), condition=cond, body=body
  x = f32[] convert(w)
  ROOT r = f32[] all-reduce(x), to_apply=add
})",
                         Topology{4, 1}, nullptr, options);
  Strings got = printed(outcomes);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_NE(got[3].find("did not finish within 2 iterations"), std::string::npos) << got[3];
  for (int d = 0; d < 3; ++d) EXPECT_EQ(got[d].rfind("error: device 3 failed: ", 0), 0u) << got[d];
}

TEST(Collectives, DevicesThatCannotMeetFailSayingWhere) {
  // Replica 0 takes the branch with an all-reduce, replica 1 the other.
  auto outcomes = runAll(std::string("HloModule m\n") + kAdd + R"(
reduce_branch {
  x = f32[] parameter(0)
  ROOT r = f32[] all-reduce(x), to_apply=add
}
plain_branch {
  ROOT x = f32[] parameter(0)
}
ENTRY e {
  x = f32[] parameter(0)
  id = u32[] replica-id()
  i = s32[] convert(id)
  ROOT c = f32[] conditional(i, x, x), branch_computations={reduce_branch, plain_branch}
})",
                         Topology{2, 1}, [](int64_t) { return "f32[] 1"; });
  Strings got = printed(outcomes);
  EXPECT_EQ(got[0], "error: the devices cannot meet: device 0 waits at 'r' (its run 1); device 1 finished");
  EXPECT_EQ(got[1], "f32[] 1");
}

TEST(Collectives, IotaGroupsExpand) {
  using Groups = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(*collectives::expandIotaGroups("[2,4]<=[8]"), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(*collectives::expandIotaGroups("[4,2]<=[2,4]T(1,0)"), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  // iota [2,2,2] transposed (2,0,1): element [i,j,k] is iota[j,k,i] = 4j + 2k + i.
  EXPECT_EQ(*collectives::expandIotaGroups("[2,4]<=[2,2,2]T(2,0,1)"), (Groups{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  EXPECT_FALSE(collectives::expandIotaGroups("[2,4]<=[7]").ok());
  EXPECT_FALSE(collectives::expandIotaGroups("[2,4]<=[8]T(0,0)").ok());
}

TEST(Collectives, TopologyFromTheHeaderOrInferred) {
  auto stated = parse(std::string("HloModule m, replica_count=2, num_partitions=4\n") + R"(
ENTRY e {
  ROOT x = f32[] parameter(0)
})");
  auto t = collectives::statedTopology(*stated);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->replicas, 2);
  EXPECT_EQ(t->partitions, 4);
  // An all-gather growing 2 -> 8 without groups: 4 replicas; a permute by
  // channel over partition ids up to 2: 3 partitions.
  auto inferred = parse(R"(
HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  g = f32[8] all-gather(x), dimensions={0}
  ROOT p = f32[8] collective-permute(g), channel_id=1, source_target_pairs={{0,2}}
})");
  collectives::Topology it = collectives::inferTopology(*inferred);
  EXPECT_EQ(it.replicas, 4);
  EXPECT_EQ(it.partitions, 3);
}

}  // namespace
}  // namespace hlo
