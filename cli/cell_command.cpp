// `memrel cell`: one cell in this process. The runner execs it for every cell (harness/runner),
// so each gets a clean CUDA context and its own allocator settings; by hand, it is for debugging.
#include <memory>

#include "allocators/backend_table.hpp"
#include "cli/exit_codes.hpp"
#include "cli/subcommand.hpp"
#include "harness/cell.hpp"
#include "harness/workload.hpp"
#include "platform/atomic_file.hpp"
#include "platform/byte_size.hpp"

namespace memrel::cli {
namespace {

struct CellArgs {
  std::string backend, workload, out, host_capacity = "1GiB";
};

}  // namespace

RunSubcommand attach_cell(CLI::App& app, const GlobalOptions&) {
  auto a = std::make_shared<CellArgs>();
  app.add_option("--backend", a->backend)->required();
  app.add_option("--workload", a->workload, "Workload file")->required();
  app.add_option("--out", a->out, "Cell result file")->required();
  app.add_option("--host-capacity", a->host_capacity)->capture_default_str();
  return [a] {
    Workload w = parse_workload_file(a->workload);
    CellOptions options;
    options.host_capacity_bytes =
        parse_byte_size(a->host_capacity, "--host-capacity", kMaxRequestBytes);
    CellResult result = run_cell(find_backend(a->backend), w, options);
    write_file_atomically(a->out, to_json(result).dump(1) + "\n");
    return exit_code::kSuccess;
  };
}

}  // namespace memrel::cli
