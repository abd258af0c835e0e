// How the devices of a multi-device run meet: a Transport carries each
// collective's values between them (in-process threads here; one process
// per device elsewhere), and a Participant is one device's view of the run.
//
// Every collective is one exchange: each device of the group contributes
// its operands and receives every device's, in group order; what it then
// computes is hlo/collectives.h's. An exchange never waits forever: when a
// device fails, every device waiting or arriving later fails with its
// message; when no device is running and some wait, the run is stuck (they
// wait at different collectives, or for a device that finished) and every
// waiting device fails saying where each one is.
#pragma once
#include <compare>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <vector>

#include "hlo/collectives.h"
#include "hlo/literal.h"
#include "hlo/status.h"

namespace hlo::collectives {

// One execution of one collective by one group: where the devices meet (a
// channel_id, which instructions in different branches may share, as XLA
// matches them; else the instruction), how many times this device met there
// before (a collective in a loop meets once per iteration), and the group's
// first device. `shownAs` names the instruction in messages. A meeting that
// `completes` is one every device of the group is sure to reach (it only
// computes in between): it waits for all of them even after a device
// elsewhere failed, since until then they may read what this one lent.
struct ExchangeKey {
  int64_t channel = -1;
  const Instruction* site = nullptr;  // null when channel >= 0
  int64_t occurrence = 0;
  int64_t firstDevice = 0;
  const Instruction* shownAs = nullptr;
  bool completes = false;
  bool operator<(const ExchangeKey& o) const {
    return std::tie(channel, site, occurrence, firstDevice) < std::tie(o.channel, o.site, o.occurrence, o.firstDevice);
  }
};

using SharedValues = std::vector<std::shared_ptr<const Literal>>;

// One transfer of send/recv: the channel, how many times the sender sent on
// it before (its receiver counts its receives the same way), and from and to
// which device. `shownAs` names the receiving instruction in messages.
struct MailKey {
  int64_t channel = 0;
  int64_t occurrence = 0;
  int64_t from = 0;
  int64_t to = 0;
  const Instruction* shownAs = nullptr;
  bool operator<(const MailKey& o) const {
    return std::tie(channel, occurrence, from, to) < std::tie(o.channel, o.occurrence, o.from, o.to);
  }
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Contributes `value` for device `self` to the exchange `key` among
  // `devices` (which holds self) and returns the value of each of them, in
  // the order of `devices`.
  virtual StatusOr<SharedValues> exchange(const ExchangeKey& key, const std::vector<int64_t>& devices, int64_t self,
                                          std::shared_ptr<const Literal> value) = 0;
  // send leaves `value` for key.to without waiting; receive waits until the
  // value under `key` is there and takes it.
  virtual Status send(const MailKey& key, std::shared_ptr<const Literal> value) = 0;
  virtual StatusOr<std::shared_ptr<const Literal>> receive(const MailKey& key) = 0;
  // Device `device` stopped: with an error, which every other device's
  // exchanges then return, or done.
  virtual void failed(int64_t device, const Status& why) = 0;
  virtual void finished(int64_t device) = 0;
};

// One device's view of a run: who it is, how it reaches the others, and how
// often it ran each collective.
struct Participant {
  Topology topology;
  int64_t device = 0;
  Transport* transport = nullptr;
  std::map<std::pair<int64_t, const Instruction*>, int64_t> occurrences;  // by (channel, site)
  std::map<int64_t, int64_t> sends, receives;                              // by channel

  int64_t replica() const { return device / topology.partitions; }
  int64_t partition() const { return device % topology.partitions; }
};

// The devices as threads of this process.
class InProcessTransport : public Transport {
 public:
  explicit InProcessTransport(int64_t devices);
  StatusOr<SharedValues> exchange(const ExchangeKey& key, const std::vector<int64_t>& devices, int64_t self,
                                  std::shared_ptr<const Literal> value) override;
  Status send(const MailKey& key, std::shared_ptr<const Literal> value) override;
  StatusOr<std::shared_ptr<const Literal>> receive(const MailKey& key) override;
  void failed(int64_t device, const Status& why) override;
  void finished(int64_t device) override;

 private:
  enum class State { kRunning, kWaiting, kFinished, kFailed };
  struct Meeting {
    std::vector<int64_t> devices;
    SharedValues values;
    int64_t arrived = 0;
    int64_t collected = 0;
  };
  // Fails the run when nobody can move; called with the lock held.
  void checkStuck();
  std::string whereEachWaits() const;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<State> states_;
  std::vector<const Instruction*> waitingAt_;  // and its run, for messages
  std::vector<int64_t> waitingRun_;
  std::vector<std::optional<MailKey>> waitingForMail_;
  std::map<ExchangeKey, Meeting> meetings_;
  std::map<MailKey, std::shared_ptr<const Literal>> mailbox_;
  std::optional<Status> failure_;
};

// Runs `run` once per device of `topology`, each on a thread of its own
// with its Participant, over an in-process transport; returns each device's
// outcome in device order.
std::vector<StatusOr<Literal>> runOnDevices(const Topology& topology,
                                            const std::function<StatusOr<Literal>(Participant&)>& run);

}  // namespace hlo::collectives
