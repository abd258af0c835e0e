#include "transport/mpi_transport.h"

#include <mpi.h>

#include <chrono>
#include <cstring>
#include <list>
#include <optional>
#include <string>
#include <thread>

#include "hlo/instruction.h"
#include "hlo/transport.h"
#include "parser/parser.h"

namespace hlo::transport {
namespace {

// Message tags: a failure, a device's outcome, and the exchanges' and
// transfers' own (hashed from where they happen).
constexpr int kFailureTag = 1;
constexpr int kOutcomeTag = 2;
constexpr int kFirstTransferTag = 16;

// ---- values as bytes: the shape's text, then each array's bytes in order ----

void appendArrays(const Literal& v, std::string& out) {
  if (v.shape().isTuple()) {
    for (const Literal& e : v.tupleElements()) appendArrays(e, out);
    return;
  }
  out.append(reinterpret_cast<const char*>(v.untypedData()), v.byteSize());
}

std::string toBytes(const Literal& v) {
  std::string shape = v.shape().toString(false);
  uint64_t n = shape.size();
  std::string out(reinterpret_cast<const char*>(&n), sizeof n);
  out += shape;
  appendArrays(v, out);
  return out;
}

bool fillArrays(Literal& v, const std::string& bytes, size_t& at) {
  if (v.shape().isTuple()) {
    for (Literal& e : v.tupleElements())
      if (!fillArrays(e, bytes, at)) return false;
    return true;
  }
  if (at + v.byteSize() > bytes.size()) return false;
  std::memcpy(v.untypedData(), bytes.data() + at, v.byteSize());
  at += v.byteSize();
  return true;
}

StatusOr<Literal> fromBytes(const std::string& bytes) {
  uint64_t n = 0;
  if (bytes.size() < sizeof n) return errorStatus("a value message is cut short");
  std::memcpy(&n, bytes.data(), sizeof n);
  if (bytes.size() < sizeof n + n) return errorStatus("a value message is cut short");
  HLO_ASSIGN_OR_RETURN(Shape shape, parseShape(std::string_view(bytes).substr(sizeof n, n)));
  Literal v(shape);
  size_t at = sizeof n + n;
  if (!fillArrays(v, bytes, at) || at != bytes.size()) return errorStatus("a value message does not fit its shape");
  return v;
}

int tagOf(const std::string& where, int64_t channel, int64_t occurrence) {
  int ub = 32767;  // the least MPI_TAG_UB the standard allows
  size_t h = std::hash<std::string>()(where) ^ (std::hash<int64_t>()(channel) * 31) ^
             (std::hash<int64_t>()(occurrence) * 1000003);
  return kFirstTransferTag + static_cast<int>(h % static_cast<size_t>(ub - kFirstTransferTag));
}

class MpiTransport : public collectives::Transport {
 public:
  MpiTransport(int rank, double timeoutSeconds) : rank_(rank), timeout_(timeoutSeconds) {}

  StatusOr<collectives::SharedValues> exchange(const collectives::ExchangeKey& key, const std::vector<int64_t>& devices,
                                               int64_t self, std::shared_ptr<const Literal> value) override {
    if (failure_) return *failure_;
    int tag = tagOf(key.channel >= 0 ? "" : key.shownAs->name(), key.channel, key.occurrence);
    std::string mine = toBytes(*value);
    std::vector<MPI_Request> sends;
    for (int64_t d : devices)
      if (d != self) {
        sends.emplace_back();
        MPI_Isend(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, static_cast<int>(d), tag, MPI_COMM_WORLD,
                  &sends.back());
      }
    collectives::SharedValues values(devices.size());
    Status status = okStatus();
    for (size_t i = 0; i < devices.size() && status.ok(); ++i) {
      if (devices[i] == self) {
        values[i] = value;
        continue;
      }
      std::string bytes;
      status = await(static_cast<int>(devices[i]), tag, "'" + key.shownAs->name() + "'", bytes);
      if (!status.ok()) break;
      StatusOr<Literal> v = fromBytes(bytes);
      if (!v.ok()) status = v.status();
      else values[i] = std::make_shared<const Literal>(std::move(v).value());
    }
    // The sends complete once their receivers take them; after a failure
    // they may never be, and are let go.
    for (MPI_Request& r : sends) {
      if (status.ok()) MPI_Wait(&r, MPI_STATUS_IGNORE);
      else MPI_Request_free(&r);
    }
    if (!status.ok()) return status;
    return values;
  }

  Status send(const collectives::MailKey& key, std::shared_ptr<const Literal> value) override {
    if (failure_) return *failure_;
    outbox_.push_back(toBytes(*value));
    MPI_Request request;
    MPI_Isend(outbox_.back().data(), static_cast<int>(outbox_.back().size()), MPI_BYTE, static_cast<int>(key.to),
              tagOf("mail", key.channel, key.occurrence), MPI_COMM_WORLD, &request);
    MPI_Request_free(&request);
    return okStatus();
  }

  StatusOr<std::shared_ptr<const Literal>> receive(const collectives::MailKey& key) override {
    if (failure_) return *failure_;
    std::string bytes;
    HLO_RETURN_IF_ERROR(await(static_cast<int>(key.from), tagOf("mail", key.channel, key.occurrence),
                              "'" + key.shownAs->name() + "'", bytes));
    HLO_ASSIGN_OR_RETURN(Literal v, fromBytes(bytes));
    return std::make_shared<const Literal>(std::move(v));
  }

  void failed(int64_t, const Status& why) override {
    if (failure_) return;  // it failed because another did: that one told everyone
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    outbox_.push_back(why.message());
    for (int r = 0; r < size; ++r) {
      if (r == rank_) continue;
      MPI_Request request;
      MPI_Isend(outbox_.back().data(), static_cast<int>(outbox_.back().size()), MPI_BYTE, r, kFailureTag,
                MPI_COMM_WORLD, &request);
      MPI_Request_free(&request);
    }
  }

  void finished(int64_t) override {}

  // Takes the failure messages no wait took (before MPI_Finalize).
  void drainFailures() {
    int flag = 1;
    while (flag) {
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, kFailureTag, MPI_COMM_WORLD, &flag, &st);
      if (flag) takeFailure(st);
    }
  }

 private:
  void takeFailure(const MPI_Status& st) {
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    std::string message(static_cast<size_t>(n), '\0');
    MPI_Recv(message.data(), n, MPI_BYTE, st.MPI_SOURCE, kFailureTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!failure_) failure_ = errorStatus("device " + std::to_string(st.MPI_SOURCE) + " failed: " + message);
  }

  // The message from `source` under `tag`, or a failure: another rank's, or
  // none arriving within the timeout.
  Status await(int source, int tag, const std::string& at, std::string& out) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_);
    while (true) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &st);
      if (flag) {
        int n = 0;
        MPI_Get_count(&st, MPI_BYTE, &n);
        out.resize(static_cast<size_t>(n));
        MPI_Recv(out.data(), n, MPI_BYTE, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return okStatus();
      }
      MPI_Iprobe(MPI_ANY_SOURCE, kFailureTag, MPI_COMM_WORLD, &flag, &st);
      if (flag) takeFailure(st);
      if (failure_) return *failure_;
      if (std::chrono::steady_clock::now() > deadline) {
        failure_ = errorStatus("device " + std::to_string(rank_) + " waited " + std::to_string(timeout_) +
                               " s at " + at + " for device " + std::to_string(source) +
                               ", which never came (another branch or loop count, or it stopped)");
        return *failure_;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

  int rank_;
  double timeout_;
  std::optional<Status> failure_;
  std::list<std::string> outbox_;  // the bytes of sends in flight
};

}  // namespace

bool haveMpi() { return true; }

StatusOr<MpiRun> runOnMpiRanks(const collectives::Topology& topology, double timeoutSeconds,
                               const std::function<StatusOr<Literal>(collectives::Participant&)>& run) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(nullptr, nullptr);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != topology.devices()) {
    MPI_Finalize();
    return errorStatus("the run has " + topology.toString() + ", " + std::to_string(topology.devices()) +
                       " devices, but the MPI job " + std::to_string(size) + " ranks (mpirun -np " +
                       std::to_string(topology.devices()) + ")");
  }
  MpiTransport transport(rank, timeoutSeconds);
  collectives::Participant me{topology, rank, &transport, {}, {}, {}};
  StatusOr<Literal> outcome = run(me);
  if (!outcome.ok()) transport.failed(rank, outcome.status());

  // Every outcome to rank 0: a byte (1 ok, 0 failed), then the value or the message.
  MpiRun result;
  result.rank = rank;
  auto pack = [](const StatusOr<Literal>& o) {
    return o.ok() ? std::string(1, '\1') + toBytes(*o) : std::string(1, '\0') + o.status().message();
  };
  if (rank == 0) {
    result.outcomes.push_back(std::move(outcome));
    for (int r = 1; r < size; ++r) {
      MPI_Status st;
      MPI_Probe(r, kOutcomeTag, MPI_COMM_WORLD, &st);
      int n = 0;
      MPI_Get_count(&st, MPI_BYTE, &n);
      std::string bytes(static_cast<size_t>(n), '\0');
      MPI_Recv(bytes.data(), n, MPI_BYTE, r, kOutcomeTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (bytes.empty()) result.outcomes.push_back(errorStatus("an empty outcome message"));
      else if (bytes[0] == '\1') result.outcomes.push_back(fromBytes(bytes.substr(1)));
      else result.outcomes.push_back(errorStatus(bytes.substr(1)));
    }
  } else {
    std::string bytes = pack(outcome);
    MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, kOutcomeTag, MPI_COMM_WORLD);
    result.outcomes.push_back(std::move(outcome));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  transport.drainFailures();
  MPI_Finalize();
  return result;
}

}  // namespace hlo::transport
