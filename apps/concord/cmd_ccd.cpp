// `concord ccd FILE.csv --type vf|ee` (placeholder registration; implemented with the CCD module).
#include "commands.hpp"

namespace concord::cli {

void register_ccd(CLI::App& app, Action& action) {
    auto* cmd = app.add_subcommand("ccd", "Run CCD queries from a benchmark CSV file");
    (void)cmd;
    (void)action;
}

}  // namespace concord::cli
