// `concord audit DIR`: exact intersection test of every saved frame of an output directory.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "unfinished_run.hpp"
#include "concord/io/output_audit.hpp"

namespace concord::cli {

namespace {

struct AuditOptions {
    std::string dir;
    bool quiet = false;
};

int run_audit(const AuditOptions& opt) {
    OutputReader reader(opt.dir);
    note_unfinished_run("audit", reader);
    const bool tty = !opt.quiet && isatty(fileno(stderr));
    OutputAuditSummary summary = audit_output(reader, [&](int frame) {
        if (tty) std::fprintf(stderr, "\raudit: frame %d\x1b[K", frame);
    });
    if (tty) std::fprintf(stderr, "\r\x1b[K");
    std::cout << "audit: " << audit_summary_line(summary, reader) << "\n";
    return summary.clean() ? kExitOk : kExitFailure;
}

}  // namespace

void register_audit(CLI::App& app, Action& action) {
    auto opt = std::make_shared<AuditOptions>();
    auto* cmd = app.add_subcommand(
        "audit", "Check every saved frame of an output directory for intersections (exact test)");
    cmd->add_option("dir", opt->dir, "Output directory written by `concord run`")->required();
    cmd->add_flag("--quiet", opt->quiet, "No progress display on a terminal");
    cmd->callback([opt, &action] { action = [opt] { return run_audit(*opt); }; });
}

}  // namespace concord::cli
