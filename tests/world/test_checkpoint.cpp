// The checkpoint file (issue 18): exact round trip, refused when damaged, written whole.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "concord/math/error.hpp"
#include "concord/world/atomic_file.hpp"
#include "concord/world/checkpoint.hpp"

namespace concord {
namespace {

namespace fs = std::filesystem;

struct TempFile {
    std::string path = (fs::temp_directory_path() /
                        ("concord_ckpt_" + std::to_string(::getpid()) + "_" +
                         std::to_string(counter++)))
                           .string();
    ~TempFile() {
        std::error_code ec;
        fs::remove(path, ec);
        fs::remove(path + ".tmp", ec);
    }
    static inline int counter = 0;
};

Checkpoint sample() {
    Checkpoint c;
    c.frame = 42;
    c.scene_digest = "fnv1a64:0123456789abcdef";
    c.world.time = 0.42;
    c.world.steps = 84;
    c.world.q = VecX::LinSpaced(24, -1.0, 1.0);
    c.world.q[3] = -0.0;
    c.world.q_dot = VecX::Constant(24, 1e-300);
    c.world.num_bodies = 2;
    c.world.barrier_stiffness = 6.8e6;
    c.world.time_step_level = 2;
    c.world.level_successes = 1;
    c.simulator = "distributed";
    c.extension = {1, 2, 3, 0, 255};
    return c;
}

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string error_of(const std::string& path) {
    try {
        load_checkpoint(path);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(Checkpoint, RoundTripsExactly) {
    TempFile f;
    const Checkpoint c = sample();
    save_checkpoint(c, f.path);
    EXPECT_FALSE(fs::exists(f.path + ".tmp"));
    const Checkpoint r = load_checkpoint(f.path);
    EXPECT_EQ(r.frame, c.frame);
    EXPECT_EQ(r.scene_digest, c.scene_digest);
    EXPECT_TRUE(r.world.bitwise_equal(c.world));
    EXPECT_EQ(r.world.num_bodies, 2);
    EXPECT_EQ(r.simulator, c.simulator);
    EXPECT_EQ(r.extension, c.extension);
    // Writing it again gives the same bytes (checkpoints of equal runs compare equal).
    TempFile g;
    save_checkpoint(r, g.path);
    EXPECT_EQ(read_bytes(f.path), read_bytes(g.path));
}

TEST(Checkpoint, DamagedTruncatedOrForeignFilesAreRefusedByName) {
    TempFile f;
    save_checkpoint(sample(), f.path);
    const std::string good = read_bytes(f.path);
    // Every single flipped byte is caught (magic, header, sizes, data or checksum).
    for (std::size_t i = 0; i < good.size(); i += 7) {
        std::string bad = good;
        bad[i] = static_cast<char>(bad[i] ^ 0x5a);
        write_bytes(f.path, bad);
        const std::string e = error_of(f.path);
        EXPECT_NE(e.find(f.path), std::string::npos) << "byte " << i << ": '" << e << "'";
    }
    for (std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{20}, good.size() - 1}) {
        write_bytes(f.path, good.substr(0, n));
        EXPECT_NE(error_of(f.path).find(f.path), std::string::npos) << n << " bytes";
    }
    write_bytes(f.path, good + "x");
    EXPECT_NE(error_of(f.path).find("checksum"), std::string::npos);
    write_bytes(f.path, "CNCRDSTA not a checkpoint");
    EXPECT_NE(error_of(f.path).find("not a Concord checkpoint"), std::string::npos);
    fs::remove(f.path);
    EXPECT_NE(error_of(f.path).find("cannot open"), std::string::npos);
}

TEST(Checkpoint, AnInconsistentStateIsNotWritten) {
    TempFile f;
    Checkpoint c = sample();
    c.world.q_dot.resize(12);
    EXPECT_THROW(save_checkpoint(c, f.path), InputError);
    EXPECT_FALSE(fs::exists(f.path));
}

TEST(AtomicFile, ReplacesWholeAndReportsWhatFailed) {
    TempFile f;
    write_file_atomically(f.path, "first");
    write_file_atomically(f.path, "second, longer", /*durable=*/true);
    EXPECT_EQ(read_bytes(f.path), "second, longer");
    EXPECT_FALSE(fs::exists(f.path + ".tmp"));
    const std::string missing = f.path + "_no_such_dir/file";
    try {
        write_file_atomically(missing, "x");
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(missing), std::string::npos);
    }
}

}  // namespace
}  // namespace concord
