#include "hlo/transport.h"

#include <algorithm>
#include <system_error>
#include <thread>

#include "hlo/instruction.h"

namespace hlo::collectives {

InProcessTransport::InProcessTransport(int64_t devices)
    : states_(static_cast<size_t>(devices), State::kRunning),
      waitingAt_(static_cast<size_t>(devices)),
      waitingRun_(static_cast<size_t>(devices)),
      waitingForMail_(static_cast<size_t>(devices)) {}

StatusOr<SharedValues> InProcessTransport::exchange(const ExchangeKey& key, const std::vector<int64_t>& devices,
                                                    int64_t self, std::shared_ptr<const Literal> value) {
  std::unique_lock<std::mutex> lock(mutex_);
  bool heedFailure = !key.completes;
  if (heedFailure && failure_) return *failure_;
  auto position = std::find(devices.begin(), devices.end(), self);
  if (position == devices.end()) return errorStatus("internal error: device " + std::to_string(self) + " exchanges outside its group");
  Meeting& meeting = meetings_[key];
  if (meeting.devices.empty()) {
    meeting.devices = devices;
    meeting.values.resize(devices.size());
  } else if (meeting.devices != devices) {
    failure_ = errorStatus("'" + key.shownAs->name() + "': devices disagree on the group they form");
    changed_.notify_all();
    return *failure_;
  }
  meeting.values[position - devices.begin()] = std::move(value);
  ++meeting.arrived;
  if (meeting.arrived == static_cast<int64_t>(devices.size())) {
    // The others run again from now, before they wake: a device finishing
    // meanwhile must not find them all waiting.
    for (int64_t d : devices) states_[d] = State::kRunning;
    changed_.notify_all();
  } else {
    states_[self] = State::kWaiting;
    waitingAt_[self] = key.shownAs;
    waitingRun_[self] = key.occurrence;
    checkStuck();
    auto complete = [&] { return meeting.arrived == static_cast<int64_t>(meeting.devices.size()); };
    changed_.wait(lock, [&] { return (heedFailure && failure_) || complete(); });
    // A meeting that completed is taken even if a failure came meanwhile:
    // the others took it too, and may count on this device to go on.
    if (!complete()) return *failure_;
  }
  SharedValues values = meeting.values;
  if (++meeting.collected == static_cast<int64_t>(devices.size())) meetings_.erase(key);
  return values;
}

Status InProcessTransport::send(const MailKey& key, std::shared_ptr<const Literal> value) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failure_) return *failure_;
  mailbox_[key] = std::move(value);
  // The receiver runs again from now (see exchange).
  if (waitingForMail_[key.to] && !(*waitingForMail_[key.to] < key) && !(key < *waitingForMail_[key.to]))
    states_[key.to] = State::kRunning;
  changed_.notify_all();
  return okStatus();
}

StatusOr<std::shared_ptr<const Literal>> InProcessTransport::receive(const MailKey& key) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto arrived = [&] { return mailbox_.count(key) > 0; };
  if (!failure_ && !arrived()) {
    states_[key.to] = State::kWaiting;
    waitingAt_[key.to] = key.shownAs;
    waitingRun_[key.to] = key.occurrence;
    waitingForMail_[key.to] = key;
    checkStuck();
    changed_.wait(lock, [&] { return failure_ || arrived(); });
    waitingForMail_[key.to].reset();
    states_[key.to] = State::kRunning;
  }
  if (failure_) return *failure_;
  auto letter = mailbox_.find(key);
  std::shared_ptr<const Literal> value = std::move(letter->second);
  mailbox_.erase(letter);
  return value;
}

void InProcessTransport::failed(int64_t device, const Status& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  states_[device] = State::kFailed;
  if (!failure_) failure_ = errorStatus("device " + std::to_string(device) + " failed: " + why.message());
  changed_.notify_all();
}

void InProcessTransport::finished(int64_t device) {
  std::lock_guard<std::mutex> lock(mutex_);
  states_[device] = State::kFinished;
  checkStuck();
}

void InProcessTransport::checkStuck() {
  if (failure_) return;
  bool anyRunning = std::count(states_.begin(), states_.end(), State::kRunning) > 0;
  bool anyWaiting = std::count(states_.begin(), states_.end(), State::kWaiting) > 0;
  if (anyRunning || !anyWaiting) return;
  failure_ = errorStatus("the devices cannot meet: " + whereEachWaits());
  changed_.notify_all();
}

std::string InProcessTransport::whereEachWaits() const {
  std::string out;
  for (size_t d = 0; d < states_.size(); ++d) {
    if (!out.empty()) out += "; ";
    out += "device " + std::to_string(d);
    if (states_[d] == State::kWaiting) {
      out += " waits at '" + waitingAt_[d]->name() + "' (its run " + std::to_string(waitingRun_[d] + 1) + ")";
    } else {
      out += states_[d] == State::kFinished ? " finished" : " failed";
    }
  }
  return out;
}

std::vector<StatusOr<Literal>> runOnDevices(const Topology& topology,
                                            const std::function<StatusOr<Literal>(Participant&)>& run) {
  int64_t n = topology.devices();
  InProcessTransport transport(n);
  std::vector<std::optional<StatusOr<Literal>>> outcomes(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n));
  for (int64_t d = 0; d < n; ++d) {
    try {
      threads.emplace_back([&, d] {
        Participant participant{topology, d, &transport, {}};
        StatusOr<Literal> outcome = run(participant);
        if (outcome.ok()) transport.finished(d);
        else transport.failed(d, outcome.status());
        outcomes[d] = std::move(outcome);
      });
    } catch (const std::system_error& e) {
      // The devices started wait for the rest: make them fail instead.
      for (int64_t k = d; k < n; ++k) {
        Status why = errorStatus("cannot start a thread for device " + std::to_string(k) + ": " + e.what());
        transport.failed(k, why);
        outcomes[k] = why;
      }
      break;
    }
  }
  for (std::thread& thread : threads) thread.join();
  std::vector<StatusOr<Literal>> results;
  results.reserve(outcomes.size());
  for (auto& outcome : outcomes) results.push_back(std::move(*outcome));
  return results;
}

}  // namespace hlo::collectives
