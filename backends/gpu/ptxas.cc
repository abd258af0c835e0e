// ptxas and cuobjdump as child processes: the PTX, the cubin and what they
// print in temporary files, each program started without a shell (LLVM's ExecuteAndWait, posix_spawn), so
// paths need no quoting.
#include "backends/gpu/ptxas.h"

#include <cstdlib>
#include <optional>
#include <vector>

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/FileUtilities.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/raw_ostream.h>

namespace hlo::gpu {
namespace {

// The toolkit's documented default install location.
constexpr const char* kDefaultToolkitBin = "/usr/local/cuda/bin";

StatusOr<std::string> temporaryFile(const char* suffix) {
  llvm::SmallString<128> path;
  if (std::error_code e = llvm::sys::fs::createTemporaryFile("hlo-ptxas", suffix, path))
    return errorStatus(std::string("gpu: cannot create a temporary .") + suffix + " file: " + e.message());
  return std::string(path);
}

}  // namespace

StatusOr<std::string> findCudaTool(const std::string& name) {
  if (auto onPath = llvm::sys::findProgramByName(name)) return *onPath;
  std::vector<std::string> directories;
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) {
    llvm::SmallString<256> bin(home);
    llvm::sys::path::append(bin, "bin");
    directories.push_back(std::string(bin));
  }
  directories.push_back(kDefaultToolkitBin);
  std::vector<llvm::StringRef> refs(directories.begin(), directories.end());
  if (auto found = llvm::sys::findProgramByName(name, refs)) return *found;
  std::string looked = "PATH";
  for (const std::string& d : directories) looked += ", " + d;
  return errorStatus("gpu: " + name + " not found; looked in " + looked);
}

namespace {

// Runs `program` with `args` (args[0] is the program), its standard output
// and error into `log`; an error with what it printed unless it exits 0.
Status runTool(const std::string& program, llvm::ArrayRef<llvm::StringRef> args, const std::string& log,
               const std::string& what) {
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(log), llvm::StringRef(log)};
  std::string launchError;
  int rc = llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects, 0, 0, &launchError);
  if (rc == 0) return okStatus();
  if (rc < 0) return errorStatus("gpu: cannot run " + program + ": " + launchError);
  std::string output;
  if (auto text = llvm::MemoryBuffer::getFile(log)) output = (*text)->getBuffer().str();
  return errorStatus("gpu: " + what + " failed (exit " + std::to_string(rc) + "):\n" + output);
}

// Assembles `ptx` for `arch` into the file `cubin`.
Status assemble(const std::string& ptx, const std::string& arch, const std::string& cubin) {
  HLO_ASSIGN_OR_RETURN(std::string ptxas, findCudaTool("ptxas"));
  HLO_ASSIGN_OR_RETURN(std::string input, temporaryFile("ptx"));
  llvm::FileRemover removeInput(input);
  HLO_ASSIGN_OR_RETURN(std::string log, temporaryFile("log"));
  llvm::FileRemover removeLog(log);
  {
    std::error_code e;
    llvm::raw_fd_ostream out(input, e);
    if (e) return errorStatus("gpu: cannot write " + input + ": " + e.message());
    out << ptx;
    out.close();
    if (out.has_error()) return errorStatus("gpu: cannot write " + input + ": " + out.error().message());
  }
  std::string archFlag = "-arch=" + arch;
  // ptxas prints errors on stderr and notes on stdout; keep both.
  llvm::StringRef args[] = {ptxas, archFlag, "-o", cubin, input};
  return runTool(ptxas, args, log, "ptxas " + archFlag);
}

}  // namespace

Status assembleWithPtxas(const std::string& ptx, const std::string& arch) {
  HLO_ASSIGN_OR_RETURN(std::string cubin, temporaryFile("cubin"));
  llvm::FileRemover removeCubin(cubin);
  return assemble(ptx, arch, cubin);
}

StatusOr<std::string> sassOf(const std::string& ptx, const std::string& arch) {
  HLO_ASSIGN_OR_RETURN(std::string cuobjdump, findCudaTool("cuobjdump"));
  HLO_ASSIGN_OR_RETURN(std::string cubin, temporaryFile("cubin"));
  llvm::FileRemover removeCubin(cubin);
  HLO_RETURN_IF_ERROR(assemble(ptx, arch, cubin));
  HLO_ASSIGN_OR_RETURN(std::string sass, temporaryFile("sass"));
  llvm::FileRemover removeSass(sass);
  llvm::StringRef args[] = {cuobjdump, "-sass", cubin};
  HLO_RETURN_IF_ERROR(runTool(cuobjdump, args, sass, "cuobjdump -sass"));
  auto text = llvm::MemoryBuffer::getFile(sass);
  if (!text) return errorStatus("gpu: cannot read " + sass + ": " + text.getError().message());
  return (*text)->getBuffer().str();
}

}  // namespace hlo::gpu
