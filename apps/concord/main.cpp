// Entry point of the `concord` command-line tool.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "concord/math/error.hpp"

#ifndef CONCORD_VERSION
#define CONCORD_VERSION "unknown"
#endif

namespace {

int run(int argc, char** argv) {
    using namespace concord::cli;
    CLI::App app{"Concord: penetration-free affine body dynamics with IPC contact", "concord"};
    app.set_version_flag("--version", std::string("concord ") + CONCORD_VERSION);
    app.require_subcommand(0, 1);

    Action action;
    register_run(app, action);
    register_info(app, action);
    register_audit(app, action);
    register_ccd(app, action);
    register_view(app, action);
    register_export(app, action);
    register_render(app, action);
    register_plot(app, action);

    // `concord help [COMMAND]` prints the help of the root or of one command.
    std::string help_topic;
    auto* help = app.add_subcommand("help", "Show help for concord or for one command");
    help->add_option("command", help_topic, "Command to describe");
    help->callback([&] {
        action = [&]() -> int {
            if (help_topic.empty()) {
                std::cout << app.get_formatter()->make_help(&app, "concord", CLI::AppFormatMode::Normal);
                return kExitOk;
            }
            for (auto* sub : app.get_subcommands({})) {
                if (sub->get_name() == help_topic && sub != help) {
                    std::cout << sub->get_formatter()->make_help(sub, sub->get_name(),
                                                                 CLI::AppFormatMode::Sub);
                    return kExitOk;
                }
            }
            std::cerr << "concord: unknown command '" << help_topic << "' (see `concord help`)\n";
            return kExitBadInput;
        };
    });

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return kExitOk;
    } catch (const CLI::CallForVersion&) {
        std::cout << "concord " << CONCORD_VERSION << "\n";
        return kExitOk;
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);
        std::cerr << "concord: " << e.what() << " (see `concord help`)\n";
        return kExitBadInput;
    }
    if (!action) {
        std::cout << app.help();
        return kExitOk;
    }
    return action();
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const concord::InputError& e) {
        std::cerr << "concord: " << e.what() << "\n";
        return concord::cli::kExitBadInput;
    } catch (const std::bad_alloc&) {
        std::cerr << "concord: out of memory\n";
        return concord::cli::kExitFailure;
    } catch (const std::exception& e) {
        std::cerr << "concord: internal error: " << e.what() << "\n";
        return concord::cli::kExitFailure;
    }
}
