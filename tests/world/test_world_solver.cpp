// Solver options through the world: every option keeps the non-penetration guarantee, the
// statistics describe the step, divergence leaves the state untouched, capture/restore is
// bit-exact, retry-halving recovers a failed step, and islands match the monolithic solve.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <tbb/global_control.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "concord/math/error.hpp"
#include "concord/world/world.hpp"
#include "world_test_util.hpp"

using namespace concord;
using concord::test::box_body;

namespace {

// A tilted box thrown at the ground: the landing needs several CCD-limited iterations.
SceneSpec thrown_box(double speed = 5.0) {
    SceneSpec s;
    s.time_step = 0.01;
    s.planes.push_back(PlaneSpec{});
    BodySpec b = box_body("box", Vec3(0, 0.9, 0));
    b.velocity = Vec3(0, -speed, 0);
    b.rotation = Eigen::AngleAxisd(0.2, Vec3(1, 0, 1).normalized()).toRotationMatrix();
    s.bodies = {b};
    return s;
}

// `piles` stacks of `height` boxes on the ground, `spacing` apart, with friction.
SceneSpec piles(int count, int height, double spacing) {
    SceneSpec s;
    s.time_step = 0.01;
    s.planes.push_back(PlaneSpec{});
    s.contact.friction = 0.3;
    for (int p = 0; p < count; ++p)
        for (int k = 0; k < height; ++k) {
            // (Appended, not "b" + ...: GCC 12 warns about that expression, a false -Wrestrict.)
            std::string name = "b";
            name += std::to_string(p);
            name += '_';
            name += std::to_string(k);
            BodySpec b = box_body(name,
                                  Vec3(spacing * p + 0.05 * k, 0.25 + 0.52 * k + 0.002, 0.03 * k),
                                  Vec3::Constant(0.5));
            b.rotation = Eigen::AngleAxisd(0.1 * k + 0.05 * p, Vec3::UnitY()).toRotationMatrix();
            s.bodies.push_back(b);
        }
    return s;
}

VecX all_q(const World& w) {
    VecX q(12 * w.num_bodies());
    for (int b = 0; b < w.num_bodies(); ++b) q.segment<12>(12 * b) = w.q(b);
    return q;
}

bool same_bits(const VecX& a, const VecX& b) {
    return a.size() == b.size() &&
           std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) ==
               0;
}

double lowest_vertex(const World& w, int body) {
    return w.world_vertices(body).col(1).minCoeff();
}

}  // namespace

// Every option, changed one at a time from the defaults: the box lands without ever
// penetrating the ground, and no step diverges.
TEST(WorldSolver, EveryOptionKeepsTheBoxAboveTheGround) {
    std::vector<std::pair<std::string, SolverParams>> variants;
    auto add = [&](const std::string& name, auto&& change) {
        SolverParams p;
        change(p);
        variants.emplace_back(name, p);
    };
    add("defaults", [](SolverParams&) {});
    add("residual_norm", [](SolverParams& p) { p.line_search = LineSearchType::ResidualNorm; });
    add("strong_wolfe", [](SolverParams& p) { p.line_search = LineSearchType::StrongWolfe; });
    add("psd never", [](SolverParams& p) { p.psd_projection = PsdProjectionMode::Never; });
    add("psd if_fail_retry",
        [](SolverParams& p) { p.psd_projection = PsdProjectionMode::IfFailRetry; });
    add("psd if_fail_always",
        [](SolverParams& p) { p.psd_projection = PsdProjectionMode::IfFailAlways; });
    for (LinearSolverType t : {LinearSolverType::LDLT, LinearSolverType::CG,
                               LinearSolverType::MINRES, LinearSolverType::GMRES})
        add("linear " + std::to_string(static_cast<int>(t)),
            [t](SolverParams& p) { p.linear.type = t; });
    for (PreconditionerType t : {PreconditionerType::None, PreconditionerType::Jacobi,
                                 PreconditionerType::IncompleteCholesky})
        add("preconditioner " + std::to_string(static_cast<int>(t)), [t](SolverParams& p) {
            p.linear.type = LinearSolverType::CG;
            p.linear.preconditioner = t;
        });
    add("cg never", [](SolverParams& p) {
        p.linear.type = LinearSolverType::CG;
        p.psd_projection = PsdProjectionMode::Never;
    });
    add("global", [](SolverParams& p) {
        p.convergence_mode = ConvergenceMode::Global;
        p.abs_tol = 1e-9;
    });
    add("step_norm", [](SolverParams& p) { p.convergence_mode = ConvergenceMode::StepNorm; });
    add("two iterations", [](SolverParams& p) { p.max_iterations = 2; });
    add("no improvement", [](SolverParams& p) { p.stop_on_no_improvement = true; });
    add("retry", [](SolverParams& p) { p.on_failure = FailurePolicy::RetryHalving; });
    add("islands off", [](SolverParams& p) { p.islands = false; });
    for (const auto& [name, params] : variants) {
        SceneSpec s = thrown_box();
        static_cast<SolverParams&>(s.solver) = params;
        World w(s);
        int converged = 0;
        for (int i = 0; i < 25; ++i) {
            const StepStats& st = w.step();
            ASSERT_GT(lowest_vertex(w, 0), 0.0) << name << " step " << i;
            ASSERT_NE(st.status, ConvergenceStatus::Diverged) << name << " step " << i;
            converged += st.status == ConvergenceStatus::Converged;
        }
        EXPECT_NEAR(w.q(0)[1], 0.5, 0.05) << name;  // landed, roughly resting
        if (name != "two iterations") {
            EXPECT_GT(converged, 15) << name;
        }
    }
}

// The statistics of a barrier solve (the hybrid model's hand-over is in test_world_contact.cpp).
TEST(WorldSolver, StatisticsDescribeTheStep) {
    SceneSpec s = thrown_box();
    s.contact.model = ContactModel::Barrier;
    World w(s);
    for (int i = 0; i < 6; ++i) w.step();  // the landing step
    const StepStats& st = w.last_stats();
    const SolverStats& ss = w.solver_stats();
    EXPECT_EQ(st.status, ss.status);
    EXPECT_EQ(st.stop_reason, ss.stop_reason);
    EXPECT_EQ(st.converged, ss.status == ConvergenceStatus::Converged);
    EXPECT_EQ(st.newton_iterations, ss.nonlinear_iterations);
    EXPECT_GT(st.newton_iterations, 1);
    EXPECT_GT(st.ccd_limited_steps, 0);
    EXPECT_GT(st.contacts, 0);
    EXPECT_EQ(st.time_step, 0.01);
    EXPECT_EQ(st.substeps, 1);
    EXPECT_EQ(st.retries, 0);
    EXPECT_GE(st.t_frame, st.t_solve);
    EXPECT_NEAR(st.t_solve, st.t_assembly + st.t_linear + st.t_line_search, 1e-12);
    ASSERT_EQ(ss.islands.size(), 1u);
    const IslandStats& island = ss.islands[0];
    EXPECT_EQ(island.bodies, std::vector<int>{0});
    ASSERT_EQ(island.solves.size(), 1u);  // no friction: one solve
    const NewtonStats& n = island.solves[0];
    EXPECT_EQ(n.iterations, st.newton_iterations);
    ASSERT_EQ(n.history.size(), static_cast<std::size_t>(n.iterations));
    ASSERT_EQ(n.residual_history.size(), static_cast<std::size_t>(n.iterations) + 1);
    EXPECT_EQ(st.residual, n.residual_history.back());
    int ls_trials = 0, limited = 0;
    for (const NewtonIteration& it : n.history) {
        EXPECT_GT(it.step, 0.0);
        EXPECT_LE(it.step, it.max_step);
        EXPECT_GT(it.direction_norm, 0.0);
        EXPECT_EQ(it.linear_solver, LinearSolverType::LDLT);
        EXPECT_TRUE(it.psd_projected);
        ls_trials += it.line_search_trials;
        limited += it.max_step < 1.0;
    }
    EXPECT_EQ(ls_trials, st.line_search_trials);
    EXPECT_EQ(limited, st.ccd_limited_steps);
    EXPECT_EQ(st.status, ConvergenceStatus::Converged);
    EXPECT_LE(st.residual, 1e-3);
}

// Free fall: the potential is quadratic, so one Newton step meets the residual tolerance.
TEST(WorldSolver, ResidualConvergenceOnAQuadraticStep) {
    SceneSpec s;
    s.bodies.push_back(box_body("box", Vec3(0, 2, 0)));
    World w(s);
    for (int i = 0; i < 5; ++i) {
        const StepStats& st = w.step();
        EXPECT_EQ(st.status, ConvergenceStatus::Converged);
        EXPECT_EQ(st.stop_reason, StopReason::Residual);
        EXPECT_EQ(st.newton_iterations, 1);
        // The solve starts at q^t, where the residual is -M (h q_dot + h^2 g): after i steps of
        // free fall q_dot = i h g, so it is i + 1 times the gravity loading, whose weighted
        // norm is 1 (the box's centre of mass is its local origin, so the affine part is 0).
        EXPECT_NEAR(w.solver_stats().islands[0].solves[0].residual_history.front(), i + 1.0, 1e-9);
    }
}

TEST(WorldSolver, MaxTimeStopsTheSolve) {
    SceneSpec s = thrown_box();
    s.solver.max_time = 1e-9;
    World w(s);
    for (int i = 0; i < 5; ++i) w.step();  // falls freely: converges at once, before any limit
    const StepStats& st = w.step();        // contact: needs iterations
    EXPECT_EQ(st.status, ConvergenceStatus::Stopped);
    EXPECT_EQ(st.stop_reason, StopReason::MaxTime);
    EXPECT_GT(lowest_vertex(w, 0), 0.0);
}

TEST(WorldSolver, NonFiniteForceDivergesAndLeavesTheStateUnchanged) {
    for (FailurePolicy policy : {FailurePolicy::Continue, FailurePolicy::RetryHalving}) {
        SceneSpec s;
        s.planes.push_back(PlaneSpec{});
        s.bodies = {box_body("good", Vec3(0, 0.6, 0)), box_body("bad", Vec3(3, 0.6, 0))};
        s.bodies[1].external_force = Vec3(std::numeric_limits<double>::quiet_NaN(), 0, 0);
        s.solver.on_failure = policy;
        World w(s);
        const WorldState before = w.capture_state();
        const StepStats& st = w.step();
        EXPECT_EQ(st.status, ConvergenceStatus::Diverged);
        EXPECT_EQ(st.stop_reason, StopReason::Diverged);
        EXPECT_FALSE(st.converged);
        EXPECT_TRUE(w.capture_state().bitwise_equal(before));
        EXPECT_EQ(w.time(), 0.0);
        EXPECT_EQ(w.step_count(), 0);
        EXPECT_TRUE(w.q(0).allFinite() && w.q(1).allFinite());
        if (policy == FailurePolicy::RetryHalving) {
            EXPECT_EQ(st.retries, s.solver.max_halvings);
        }
    }
}

TEST(WorldSolver, CaptureAndRestoreRoundTripBitExactly) {
    SceneSpec s = piles(2, 2, 3.0);
    World w(s);
    for (int i = 0; i < 8; ++i) w.step();
    const WorldState saved = w.capture_state();
    for (int i = 0; i < 8; ++i) w.step();
    const VecX first = all_q(w);
    const WorldState end_first = w.capture_state();

    w.restore_state(saved);
    EXPECT_TRUE(w.capture_state().bitwise_equal(saved));
    EXPECT_EQ(w.time(), saved.time);
    for (int i = 0; i < 8; ++i) w.step();
    EXPECT_TRUE(same_bits(all_q(w), first));
    EXPECT_TRUE(w.capture_state().bitwise_equal(end_first));

    // Through a file, into a fresh world built from the same scene.
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("concord_state_" + std::to_string(::getpid()) + ".bin"))
                                 .string();
    w.restore_state(saved);
    w.save_state(path);
    const WorldState loaded = load_world_state(path);
    EXPECT_TRUE(loaded.bitwise_equal(saved));
    World fresh(s);
    fresh.load_state(path);
    for (int i = 0; i < 8; ++i) fresh.step();
    EXPECT_TRUE(same_bits(all_q(fresh), first));

    // Refused: another body count, a truncated file, something else entirely.
    World other(thrown_box());
    EXPECT_THROW(other.restore_state(saved), InputError);
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 8);
    EXPECT_THROW(load_world_state(path), InputError);
    std::ofstream(path) << "not a state";
    try {
        load_world_state(path);
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
    }
    std::filesystem::remove(path);
    EXPECT_THROW(load_world_state(path), InputError);
}

TEST(WorldSolver, RetryHalvingRecoversAStepThatFailsAtTheFullTimeStep) {
    // With 8 iterations a landing step runs out of iterations at h but converges at h / 2.
    SceneSpec plain = thrown_box();
    plain.solver.max_iterations = 8;
    SceneSpec retry = plain;
    retry.solver.on_failure = FailurePolicy::RetryHalving;
    World a(plain), b(retry);
    int failed_step = -1;
    for (int i = 0; i < 12 && failed_step < 0; ++i) {
        const StepStats sa = a.step();
        const StepStats& sb = b.step();
        if (sa.status == ConvergenceStatus::Stopped) {
            failed_step = i;
            EXPECT_EQ(sb.status, ConvergenceStatus::Converged);
            EXPECT_GE(sb.retries, 1);
            EXPECT_GE(sb.substeps, 2);
            EXPECT_LT(sb.time_step, plain.time_step);
        } else {
            EXPECT_TRUE(same_bits(all_q(a), all_q(b))) << "identical until the first failure";
        }
        EXPECT_EQ(a.time(), b.time());  // a full time step either way, exactly
        EXPECT_GT(lowest_vertex(b, 0), 0.0);
    }
    ASSERT_GE(failed_step, 0) << "the scene no longer fails at the full time step";
    // The time step grows back once the substeps converge again.
    bool back_to_full = false;
    for (int i = 0; i < 10 && !back_to_full; ++i)
        back_to_full = b.step().time_step == plain.time_step;
    EXPECT_TRUE(back_to_full);
}

TEST(WorldSolver, IslandsMatchTheMonolithicSolve) {
    SceneSpec s = piles(3, 2, 3.0);
    s.solver.islands = false;
    World mono(s);
    s.solver.islands = true;
    World isl(s);
    // The upper boxes start 2 cm above the lower ones: six islands until they land.
    EXPECT_EQ(isl.step().islands, 6);
    mono.step();
    for (int i = 0; i < 25; ++i) {
        const StepStats& sm = mono.step();
        const StepStats& si = isl.step();
        EXPECT_EQ(sm.islands, 1);
        EXPECT_GE(si.islands, 3) << "step " << i;
        EXPECT_FALSE(isl.solver_stats().island_fallback);
        EXPECT_EQ(si.status, ConvergenceStatus::Converged);
        EXPECT_EQ(si.contacts, sm.contacts);
    }
    EXPECT_EQ(isl.last_stats().islands, 3);  // landed: one island per pile
    const VecX d = all_q(mono) - all_q(isl);
    EXPECT_LT(d.cwiseAbs().maxCoeff(), 1e-7);
    const SolverStats& ss = isl.solver_stats();
    ASSERT_EQ(ss.islands.size(), 3u);
    EXPECT_EQ(ss.islands[0].bodies, (std::vector<int>{0, 1}));
    EXPECT_EQ(ss.islands[2].bodies, (std::vector<int>{4, 5}));
}

// A converged step reports the criterion that ended its largest solve, not a fixed "residual".
TEST(WorldSolver, ConvergedStepsReportTheCriterionOfTheirLargestSolve) {
    SceneSpec s = piles(3, 2, 3.0);
    s.solver.convergence_mode = ConvergenceMode::StepNorm;
    World w(s);
    int converged = 0;
    for (int i = 0; i < 20; ++i) {
        const StepStats& st = w.step();
        if (st.status != ConvergenceStatus::Converged) continue;
        ++converged;
        EXPECT_EQ(st.stop_reason, StopReason::StepNorm) << "step " << i;
        int most = -1;
        StopReason largest = StopReason::Diverged;
        for (const IslandStats& island : w.solver_stats().islands)
            if (island.iterations > most) {
                most = island.iterations;
                largest = island.stop_reason;
            }
        EXPECT_EQ(st.stop_reason, largest) << "step " << i;
    }
    EXPECT_GT(converged, 15);
}

TEST(WorldSolver, IslandsMergeWhenBodiesApproach) {
    // Two boxes sliding towards each other without gravity start as two islands and become
    // one when their step motion bounds overlap; nothing penetrates.
    SceneSpec s;
    s.gravity = Vec3::Zero();
    s.time_step = 0.005;
    BodySpec a = box_body("left", Vec3(-0.6, 0, 0));
    BodySpec b = box_body("right", Vec3(0.6, 0, 0));
    a.velocity = Vec3(2, 0, 0);
    b.velocity = Vec3(-2, 0, 0);
    s.bodies = {a, b};
    World w(s);
    EXPECT_EQ(w.step().islands, 2);
    int merged = 0;
    for (int i = 0; i < 40; ++i) {
        merged += w.step().islands == 1;
        ASSERT_GT(w.world_vertices(1).col(0).minCoeff() - w.world_vertices(0).col(0).maxCoeff(),
                  0.0);
    }
    EXPECT_GT(merged, 0);
}

TEST(WorldSolver, IslandsFallBackToOneSystemWhenABodyOutrunsItsBounds) {
    // A fast kinematic pusher shoves box A (its island) into box C, which starts too far away
    // to be in that island: A leaves its motion bounds, so the step is solved again as one
    // system and A never enters C.
    SceneSpec s;
    s.gravity = Vec3::Zero();
    s.time_step = 0.01;
    BodySpec pusher = box_body("pusher", Vec3(-1.005, 0, 0));
    pusher.motion = MotionType::Kinematic;
    pusher.kinematic.linear_velocity = Vec3(2, 0, 0);
    pusher.kinematic.pivot = pusher.position;
    s.bodies = {pusher, box_body("a", Vec3(0, 0, 0)), box_body("c", Vec3(1.006, 0, 0))};
    World w(s);
    bool fell_back = false;
    for (int i = 0; i < 10; ++i) {
        w.step();
        fell_back = fell_back || w.solver_stats().island_fallback;
        ASSERT_GT(w.world_vertices(2).col(0).minCoeff() - w.world_vertices(1).col(0).maxCoeff(),
                  0.0)
            << "step " << i;
        ASSERT_GT(w.world_vertices(1).col(0).minCoeff() - w.world_vertices(0).col(0).maxCoeff(),
                  0.0)
            << "step " << i;
    }
    EXPECT_TRUE(fell_back);
    EXPECT_GT(w.q(2)[0], 1.02);  // C was pushed too
}

TEST(WorldSolver, IslandsAreDeterministicAcrossThreadCounts) {
    auto run = [](int threads) {
        tbb::global_control c(tbb::global_control::max_allowed_parallelism, threads);
        World w(piles(3, 2, 3.0));
        for (int k = 0; k < 15; ++k) w.step();
        return all_q(w);
    };
    EXPECT_TRUE(same_bits(run(1), run(2)));
}

TEST(WorldSolver, VerboseLoggingReportsIterationsAndTheStopReason) {
    std::ostringstream out;
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
    auto previous = spdlog::default_logger();
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", sink));
    SceneSpec s = thrown_box();
    s.solver.verbosity = Verbosity::Verbose;
    World w(s);
    for (int i = 0; i < 6; ++i) w.step();
    SolverParams quiet = w.solver_params();
    quiet.verbosity = Verbosity::Silent;
    w.set_solver_params(quiet);
    const std::size_t logged = out.str().size();
    w.step();
    spdlog::set_default_logger(previous);
    const std::string text = out.str();
    EXPECT_NE(text.find("iteration 1: residual"), std::string::npos) << text;
    EXPECT_NE(text.find("converged (residual)"), std::string::npos) << text;
    EXPECT_NE(text.find("step 6"), std::string::npos) << text;
    EXPECT_EQ(text.size(), logged);  // silent after the change
}

TEST(WorldSolver, SolverParamsAreValidatedAndLegacyKeysMapped) {
    World w(thrown_box());
    SolverParams bad = w.solver_params();
    bad.abs_tol = -1.0;
    EXPECT_THROW(w.set_solver_params(bad), InputError);
    bad = w.solver_params();
    bad.linear.gmres_restart = 0;
    EXPECT_THROW(w.set_solver_params(bad), InputError);

    SolverSpec legacy;
    EXPECT_EQ(resolve_solver_spec(legacy), SolverParams{});
    legacy.tolerance = 1e-3;
    legacy.linear_solver = "cg";
    legacy.cg_max_iterations = 77;
    legacy.cg_tolerance = 1e-6;
    const SolverParams p = resolve_solver_spec(legacy);
    EXPECT_EQ(p.convergence_mode, ConvergenceMode::StepNorm);
    EXPECT_EQ(p.step_tol, 1e-3);
    EXPECT_EQ(p.linear.type, LinearSolverType::CG);
    EXPECT_EQ(p.linear.max_iterations, 77);
    EXPECT_EQ(p.linear.tolerance, 1e-6);
    legacy.linear_solver = "lu";
    EXPECT_THROW(resolve_solver_spec(legacy), InputError);
}
