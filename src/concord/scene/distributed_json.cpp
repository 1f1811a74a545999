#include "concord/scene/distributed_json.hpp"

#include <optional>
#include <string>

#include "concord/math/error.hpp"

namespace concord {

namespace {

constexpr int kMaxWorkers = 64;  // holder sets are 64-bit masks (energy/contact_replication.hpp)
constexpr int kMaxAndersonWindow = 16;  // a few iterates; more only costs memory

const char* axis_name(int a) {
    static const char* names[] = {"x", "y", "z"};
    return names[a];
}

int parse_axis(const JsonNode& n) {
    const std::string s = n.value().is_string() ? n.value().get<std::string>() : "";
    for (int a = 0; a < 3; ++a)
        if (s == axis_name(a)) return a;
    n.fail("expected one of x, y, z, got " + n.describe());
}

template <typename E>
E parse_choice(const JsonNode& n, std::initializer_list<std::pair<const char*, E>> choices) {
    std::string list;
    const std::string s = n.value().is_string() ? n.value().get<std::string>() : "";
    for (const auto& [name, value] : choices) {
        if (s == name) return value;
        list += (list.empty() ? "" : ", ") + std::string(name);
    }
    n.fail("expected one of " + list + ", got " + n.describe());
}

}  // namespace

const char* to_string(PenaltyRule r) {
    switch (r) {
        case PenaltyRule::Mass: return "mass";
        case PenaltyRule::Fixed: return "fixed";
        case PenaltyRule::Stiffness: return "stiffness";
    }
    return "mass";
}

const char* to_string(LoadMeasure m) {
    return m == LoadMeasure::Time ? "time" : "work";
}

const char* to_string(PlaneMoves m) {
    return m == PlaneMoves::Controller ? "controller" : "gaps";
}

const char* to_string(AdaptRule r) {
    switch (r) {
        case AdaptRule::Normalized: return "normalized";
        case AdaptRule::Paper: return "paper";
        case AdaptRule::Spectral: return "spectral";
    }
    return "normalized";
}

const char* to_string(WidthRule r) {
    return r == WidthRule::Paper ? "paper" : "contact";
}

const char* to_string(WidthSpeed s) {
    return s == WidthSpeed::Fastest ? "fastest" : "approach";
}

const char* to_string(InitialConsensus c) {
    switch (c) {
        case InitialConsensus::Start:
            return "start";
        case InitialConsensus::Resting:
            return "resting";
        case InitialConsensus::Predicted:
            break;
    }
    return "predicted";
}

const char* to_string(InitialPlanes p) {
    return p == InitialPlanes::Even ? "even" : "quantile";
}

namespace {

struct SpecProblem {
    std::string key;  ///< path below "distributed", e.g. "load_balance.kp"
    std::string message;
};

std::optional<SpecProblem> check(const DistributedSpec& d) {
    auto problem = [](std::string key, std::string msg) {
        return std::optional<SpecProblem>(SpecProblem{std::move(key), std::move(msg)});
    };
    if (d.workers < 1 || d.workers > kMaxWorkers)
        return problem("workers", "expected 1 to " + std::to_string(kMaxWorkers) + ", got " +
                                      std::to_string(d.workers));
    if (d.axis < 0 || d.axis > 2) return problem("axis", "expected x, y or z");
    for (int a = 0; a < 3; ++a)
        if (d.grid[static_cast<std::size_t>(a)] < 1)
            return problem("grid", "cell counts must be >= 1");
    if (d.uses_grid() && d.grid[0] * d.grid[1] * d.grid[2] != d.workers)
        return problem("grid", "has " + std::to_string(d.grid[0] * d.grid[1] * d.grid[2]) +
                                   " cells but there are " + std::to_string(d.workers) +
                                   " workers");
    if (!(d.alpha >= 0)) return problem("alpha", "must be >= 0");
    if (!(d.beta > 0)) return problem("beta", "must be > 0");
    if (!(d.tau > 1)) return problem("tau", "must be > 1");
    if (!(d.mu >= 1)) return problem("mu", "must be >= 1");
    if (!(d.clamp[0] > 0) || !(d.clamp[0] <= 1) || !(d.clamp[1] >= 1))
        return problem("clamp", "expected [lo, hi] with 0 < lo <= 1 <= hi");
    if (!(d.theta > 0)) return problem("theta", "must be > 0");
    if (d.max_iterations < 1) return problem("max_iterations", "must be >= 1");
    if (d.local_iterations < 0) return problem("local_iterations", "must be >= 0");
    if (d.anderson_window < 0 || d.anderson_window > kMaxAndersonWindow)
        return problem("anderson_window",
                       "must be 0 (off) to " + std::to_string(kMaxAndersonWindow));
    const LoadBalanceSpec& lb = d.load_balance;
    if (!(lb.kp >= 0)) return problem("load_balance.kp", "must be >= 0");
    if (!(lb.kd >= 0)) return problem("load_balance.kd", "must be >= 0");
    if (!(lb.smoothing > 0) || lb.smoothing > 1)
        return problem("load_balance.smoothing", "must be in (0, 1]");
    if (!(lb.dead_band >= 0) || !(lb.dead_band < 1))
        return problem("load_balance.dead_band", "must be in [0, 1)");
    return std::nullopt;
}

}  // namespace

void set_worker_count(DistributedSpec& d, int workers, const std::string& source) {
    if (workers < 1 || workers > kMaxWorkers)
        throw InputError(source + ": expected 1 to " + std::to_string(kMaxWorkers) +
                         " workers, got " + std::to_string(workers));
    const int cells = d.grid[0] * d.grid[1] * d.grid[2];
    if (d.uses_grid() && cells != workers)
        throw InputError(source + ": the scene's distributed.grid has " + std::to_string(cells) +
                         " cells");
    d.workers = workers;
}

void validate_distributed_spec(const DistributedSpec& d) {
    if (auto p = check(d)) throw InputError("distributed." + p->key + ": " + p->message);
}

DistributedSpec parse_distributed_spec(const JsonNode& node) {
    node.expect_object({"workers", "axis", "grid", "alpha", "penalty", "beta", "adapt", "tau", "mu",
                        "clamp", "rescale_dual", "theta", "max_iterations", "load_balance",
                        "adapt_rule", "width_rule", "width_speed", "initial_planes", "plane_gaps",
                        "local_iterations", "warm_start", "warm_start_penalty", "local_islands",
                        "anderson_window", "initial_consensus"});
    DistributedSpec d;
    if (auto n = node.find("workers")) d.workers = n->integer(1, kMaxWorkers);
    if (auto n = node.find("axis")) d.axis = parse_axis(*n);
    if (auto n = node.find("grid")) {
        if (n->array_size() != 3) n->fail("expected [nx, ny, nz]");
        for (std::size_t a = 0; a < 3; ++a) d.grid[a] = n->element(a).integer(1, kMaxWorkers);
    }
    if (auto n = node.find("alpha")) d.alpha = n->non_negative_number();
    if (auto n = node.find("width_rule"))
        d.width_rule = parse_choice<WidthRule>(
            *n, {{"contact", WidthRule::Contact}, {"paper", WidthRule::Paper}});
    if (auto n = node.find("width_speed"))
        d.width_speed = parse_choice<WidthSpeed>(
            *n, {{"fastest", WidthSpeed::Fastest}, {"approach", WidthSpeed::Approach}});
    if (auto n = node.find("initial_planes"))
        d.initial_planes = parse_choice<InitialPlanes>(
            *n, {{"quantile", InitialPlanes::Quantile}, {"even", InitialPlanes::Even}});
    if (auto n = node.find("plane_gaps")) d.plane_gaps = n->boolean();
    if (auto n = node.find("penalty"))
        d.penalty = parse_choice<PenaltyRule>(*n, {{"mass", PenaltyRule::Mass},
                                                   {"fixed", PenaltyRule::Fixed},
                                                   {"stiffness", PenaltyRule::Stiffness}});
    if (auto n = node.find("beta")) d.beta = n->positive_number();
    if (auto n = node.find("adapt")) d.adapt = n->boolean();
    if (auto n = node.find("adapt_rule"))
        d.adapt_rule = parse_choice<AdaptRule>(
            *n, {{"normalized", AdaptRule::Normalized},
                 {"paper", AdaptRule::Paper},
                 {"spectral", AdaptRule::Spectral}});
    if (auto n = node.find("tau")) d.tau = n->positive_number();
    if (auto n = node.find("mu")) d.mu = n->positive_number();
    if (auto n = node.find("clamp")) {
        if (n->array_size() != 2) n->fail("expected [lo, hi]");
        d.clamp = {n->element(0).positive_number(), n->element(1).positive_number()};
    }
    if (auto n = node.find("rescale_dual")) d.rescale_dual = n->boolean();
    if (auto n = node.find("theta")) d.theta = n->positive_number();
    if (auto n = node.find("max_iterations")) d.max_iterations = n->integer(1, 1'000'000);
    if (auto n = node.find("local_iterations")) d.local_iterations = n->integer(0, 1'000'000);
    if (auto n = node.find("initial_consensus"))
        d.initial_consensus =
            parse_choice<InitialConsensus>(*n, {{"predicted", InitialConsensus::Predicted},
                                                {"start", InitialConsensus::Start},
                                                {"resting", InitialConsensus::Resting}});
    if (auto n = node.find("warm_start")) d.warm_start = n->boolean();
    if (auto n = node.find("warm_start_penalty")) d.warm_start_penalty = n->boolean();
    if (auto n = node.find("local_islands")) d.local_islands = n->boolean();
    if (auto n = node.find("anderson_window"))
        d.anderson_window = n->integer(0, kMaxAndersonWindow);
    if (auto lbn = node.find("load_balance")) {
        lbn->expect_object({"enabled", "kp", "kd", "smoothing", "dead_band", "measure", "moves"});
        LoadBalanceSpec& lb = d.load_balance;
        if (auto n = lbn->find("enabled")) lb.enabled = n->boolean();
        if (auto n = lbn->find("kp")) lb.kp = n->non_negative_number();
        if (auto n = lbn->find("kd")) lb.kd = n->non_negative_number();
        if (auto n = lbn->find("smoothing")) lb.smoothing = n->positive_number();
        if (auto n = lbn->find("dead_band")) lb.dead_band = n->non_negative_number();
        if (auto n = lbn->find("measure"))
            lb.measure = parse_choice<LoadMeasure>(
                *n, {{"work", LoadMeasure::Work}, {"time", LoadMeasure::Time}});
        if (auto n = lbn->find("moves"))
            lb.moves = parse_choice<PlaneMoves>(
                *n, {{"gaps", PlaneMoves::Gaps}, {"controller", PlaneMoves::Controller}});
    }
    if (auto p = check(d)) {
        // Name the offending key where the file has it, else the object itself.
        JsonNode at = node;
        std::string rest = p->key;
        while (!rest.empty()) {
            const std::string part = rest.substr(0, rest.find('.'));
            rest = part.size() < rest.size() ? rest.substr(part.size() + 1) : "";
            auto next = at.find(part);
            if (!next) break;
            at = *next;
        }
        at.fail(p->message);
    }
    return d;
}

nlohmann::json distributed_spec_to_json(const DistributedSpec& d) {
    nlohmann::json j = {
        {"workers", d.workers},
        {"alpha", d.alpha},
        {"width_rule", to_string(d.width_rule)},
        {"width_speed", to_string(d.width_speed)},
        {"initial_planes", to_string(d.initial_planes)},
        {"plane_gaps", d.plane_gaps},
        {"penalty", to_string(d.penalty)},
        {"beta", d.beta},
        {"adapt", d.adapt},
        {"adapt_rule", to_string(d.adapt_rule)},
        {"tau", d.tau},
        {"mu", d.mu},
        {"clamp", {d.clamp[0], d.clamp[1]}},
        {"rescale_dual", d.rescale_dual},
        {"theta", d.theta},
        {"max_iterations", d.max_iterations},
        {"local_iterations", d.local_iterations},
        {"initial_consensus", to_string(d.initial_consensus)},
        {"warm_start", d.warm_start},
        {"warm_start_penalty", d.warm_start_penalty},
        {"local_islands", d.local_islands},
        {"anderson_window", d.anderson_window},
        {"load_balance",
         {{"enabled", d.load_balance.enabled},
          {"kp", d.load_balance.kp},
          {"kd", d.load_balance.kd},
          {"smoothing", d.load_balance.smoothing},
          {"dead_band", d.load_balance.dead_band},
          {"measure", to_string(d.load_balance.measure)},
          {"moves", to_string(d.load_balance.moves)}}},
    };
    if (d.uses_grid()) {
        j["grid"] = {d.grid[0], d.grid[1], d.grid[2]};
    } else {
        j["axis"] = axis_name(d.axis);
    }
    return j;
}

}  // namespace concord
