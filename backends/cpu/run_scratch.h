// What a run of a compiled module keeps from one run of a program to the
// next (cpu_runtime.cc): the Literal of each step's value and the program
// run's slot lists.
//
// A value's shape is fixed at compile time and, in a program with a memory
// plan, its bytes are where the plan puts them, so from one run to the next
// only their address changes (Literal::rebind). Built afresh, each step of
// each loop iteration would allocate and free a Literal (its shape's
// vectors) and a shared pointer's control block, which costs more than a
// small kernel itself.
//
// One RunScratch per run in progress: runs of an executable from several
// threads at once each lease their own from the pool, as they do arenas. A
// program never runs inside itself (HLO has no recursion), so one scratch
// per program is enough for a run.
#pragma once
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "hlo/literal.h"

namespace hlo::cpu {

struct Program;

struct ProgramScratch {
  std::vector<std::optional<Literal>> literals;  // by step: its value's literal, once built
  std::vector<std::shared_ptr<const Literal>> values;
  std::vector<int64_t> counted;
  std::vector<const Literal*> ops, pointers;
  std::vector<std::shared_ptr<const Literal>> parts;
};

class RunScratch {
 public:
  // `program`'s scratch; references stay valid as other programs are added.
  ProgramScratch& of(const Program& program) { return programs_[&program]; }

 private:
  std::unordered_map<const Program*, ProgramScratch> programs_;
};

class RunScratchPool {
 public:
  // A scratch no other run holds, returned to the pool when the lease ends.
  class Lease {
   public:
    Lease(RunScratchPool& pool, std::unique_ptr<RunScratch> scratch) : pool_(pool), scratch_(std::move(scratch)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { pool_.giveBack(std::move(scratch_)); }
    RunScratch& get() { return *scratch_; }

   private:
    RunScratchPool& pool_;
    std::unique_ptr<RunScratch> scratch_;
  };

  Lease acquire() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) return Lease(*this, std::make_unique<RunScratch>());
    std::unique_ptr<RunScratch> scratch = std::move(free_.back());
    free_.pop_back();
    return Lease(*this, std::move(scratch));
  }

 private:
  void giveBack(std::unique_ptr<RunScratch> scratch) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(scratch));
  }

  std::mutex mutex_;
  std::vector<std::unique_ptr<RunScratch>> free_;
};

}  // namespace hlo::cpu
