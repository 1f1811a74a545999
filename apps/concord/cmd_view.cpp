// `concord view DIR`: serves the web viewer and the output directory DIR on 127.0.0.1 and prints
// the URL; the page (viewer/, built by scripts/setup.sh) does the drawing in the browser.
#include <spawn.h>
#include <sys/wait.h>

#include <atomic>
#include <csignal>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "unfinished_run.hpp"
#include "concord/export/static_http_server.hpp"
#include "concord/export/viewer_assets.hpp"
#include "concord/io/output_layout.hpp"
#include "concord/io/output_reader.hpp"
#include "concord/math/error.hpp"

extern char** environ;

namespace concord::cli {
namespace {

struct ViewOptions {
    std::string dir;
    int port = 0;
    bool open = false;
    std::string assets;
    double max_seconds = 0.0;
};

std::atomic<bool> g_stop{false};

extern "C" void request_stop(int) {
    g_stop = true;
}

/// Starts the desktop's browser on `url` without waiting for it; false when none could start.
bool open_browser(const std::string& url) {
    for (const char* opener : {"xdg-open", "sensible-browser", "x-www-browser"}) {
        pid_t pid = 0;
        std::string prog = opener;
        char* argv[] = {prog.data(), const_cast<char*>(url.c_str()), nullptr};
        if (posix_spawnp(&pid, opener, nullptr, nullptr, argv, environ) == 0) return true;
    }
    return false;
}

/// Reads every frame once so that a broken line is reported here too; returns the count read.
int check_frames(const OutputReader& reader) {
    FrameStream stream = reader.frames();  // throws for a missing frames.jsonl
    FrameRecord record;
    int count = 0;
    try {
        while (stream.next(record)) ++count;
    } catch (const InputError& e) {
        std::cerr << "concord view: warning: " << e.what() << " (the viewer shows the " << count
                  << " frame(s) before it)\n";
        return count;
    }
    if (count == 0) {
        throw InputError(reader.directory() + "/" + output_layout::kFrames +
                         ": no frames (the run wrote nothing yet?)");
    }
    return count;
}

int run_view(const ViewOptions& o) {
    OutputReader reader(o.dir);
    note_unfinished_run("view", reader);
    const int frames = check_frames(reader);
    const auto assets = find_viewer_assets(o.assets);

    HttpServerOptions options;
    options.port = o.port;
    StaticHttpServer server({{"/data/", reader.directory()}, {"/", assets}}, options);

    g_stop = false;
    std::signal(SIGINT, request_stop);
    std::signal(SIGTERM, request_stop);
    std::signal(SIGCHLD, SIG_IGN);  // a browser started by --open is never waited for

    std::cout << "concord view: serving " << o.dir << " (" << reader.bodies().size() << " bodies, "
              << frames << " frames) at " << server.url() << std::endl;
    std::cout << "concord view: open that URL in a browser; press Ctrl-C to stop" << std::endl;
    if (o.open && !open_browser(server.url()))
        std::cerr << "concord view: could not start a browser; open the URL by hand\n";

    server.serve(g_stop, o.max_seconds);
    std::cout << "concord view: stopped after " << server.requests_served() << " requests"
              << std::endl;
    return kExitOk;
}

}  // namespace

void register_view(CLI::App& app, Action& action) {
    auto o = std::make_shared<ViewOptions>();
    auto* cmd = app.add_subcommand("view", "Serve a web viewer for an output directory");
    cmd->add_option("dir", o->dir, "Output directory written by `concord run`")->required();
    cmd->add_option("--port", o->port, "TCP port on 127.0.0.1 (default: a free one)")
        ->check(CLI::Range(0, 65535));
    cmd->add_flag("--open", o->open, "Also try to open the page in the desktop's browser");
    cmd->add_option("--assets", o->assets,
                    "Folder with the built viewer (default: viewer/dist of the source tree, or "
                    "$CONCORD_VIEWER_DIR)");
    cmd->add_option("--max-seconds", o->max_seconds,
                    "Stop serving after this many seconds (default 0: until Ctrl-C)")
        ->check(CLI::NonNegativeNumber);
    cmd->callback([o, &action] { action = [o] { return run_view(*o); }; });
}

}  // namespace concord::cli
