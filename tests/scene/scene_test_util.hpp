// Helpers shared by the scene tests.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "concord/math/error.hpp"
#include "concord/scene/scene_parser.hpp"

namespace concord::test {

inline std::string scene_data_dir() {
    return std::string(CONCORD_SOURCE_DIR) + "/tests/scene/data";
}

/// Parses scene text as if it came from "a.json" in tests/scene/data.
inline SceneSpec parse_text(const std::string& text) {
    return parse_scene(nlohmann::json::parse(text), "a.json", scene_data_dir());
}

/// Passes when `part` occurs in `text`; the failure message shows the whole text.
inline ::testing::AssertionResult contains(const std::string& text, const std::string& part) {
    if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << part << "\" not found in \"" << text << "\"";
}

/// The InputError message `f` throws, or a failure when it throws nothing.
inline std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected an InputError";
    return "";
}

/// The message of parsing `text`; the test fails unless parsing throws InputError.
inline std::string parse_error(const std::string& text) {
    return error_of([&] { parse_text(text); });
}

}  // namespace concord::test
