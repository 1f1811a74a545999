#include "concord/distributed/admm_protocol.hpp"

#include <type_traits>

namespace concord {

static_assert(std::is_trivially_copyable_v<SolverParams>);
static_assert(std::is_trivially_copyable_v<DistributedSpec>);

namespace {

void put_record(MessageWriter& w, const BodyRecord& b) {
    w.put(b.id).put_vector(b.q).put_vector(b.q_dot).put(b.holders).put(b.home).put(
        static_cast<std::uint8_t>(b.supported));
    w.put(static_cast<std::int64_t>(b.contact_multipliers.size()));
    for (const AlMemoryEntry& e : b.contact_multipliers)
        w.put(e.kind).put(e.body_a).put(e.prim_a).put(e.body_b).put(e.prim_b).put(e.lambda).put(
            e.inactive);
}

BodyRecord get_record(MessageReader& r) {
    BodyRecord b;
    b.id = r.get<std::int32_t>();
    b.q = r.get_vector();
    b.q_dot = r.get_vector();
    if (b.q.size() < 12 || b.q_dot.size() != b.q.size())
        throw std::runtime_error("body record: malformed coordinates");
    b.holders = r.get<std::uint64_t>();
    b.home = r.get<std::int32_t>();
    const auto supported = r.get<std::uint8_t>();
    if (supported > 1) throw std::runtime_error("body record: malformed support flag");
    b.supported = supported == 1;
    const auto n = r.get<std::int64_t>();
    if (n < 0) throw std::runtime_error("body record: malformed multiplier count");
    for (std::int64_t i = 0; i < n; ++i) {
        AlMemoryEntry e;
        e.kind = r.get<int>();
        e.body_a = r.get<int>();
        e.prim_a = r.get<int>();
        e.body_b = r.get<int>();
        e.prim_b = r.get<int>();
        e.lambda = r.get<double>();
        e.inactive = r.get<int>();
        b.contact_multipliers.push_back(e);
    }
    return b;
}

}  // namespace

void put_partition(MessageWriter& w, const Partition& p) {
    for (int a = 0; a < 3; ++a) w.put(p.cells[static_cast<std::size_t>(a)]);
    for (int a = 0; a < 3; ++a) w.put_list(p.planes[static_cast<std::size_t>(a)]);
}

Partition get_partition(MessageReader& r) {
    Partition p;
    for (int a = 0; a < 3; ++a) p.cells[static_cast<std::size_t>(a)] = r.get<int>();
    for (int a = 0; a < 3; ++a) p.planes[static_cast<std::size_t>(a)] = r.get_list<double>();
    return p;
}

void put_records(MessageWriter& w, const std::vector<BodyRecord>& records) {
    w.put(static_cast<std::int64_t>(records.size()));
    for (const BodyRecord& b : records) put_record(w, b);
}

std::vector<BodyRecord> get_records(MessageReader& r) {
    const auto n = r.get<std::int64_t>();
    std::vector<BodyRecord> out;
    out.reserve(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) out.push_back(get_record(r));
    return out;
}

void put_carried(MessageWriter& w, const std::vector<CarriedMultiplier>& carry) {
    w.put(static_cast<std::int64_t>(carry.size()));
    for (const CarriedMultiplier& c : carry)
        w.put(c.id).put(c.holders).put(c.rho).put_vector(c.lambda);
}

std::vector<CarriedMultiplier> get_carried(MessageReader& r) {
    const auto n = r.get<std::int64_t>();
    if (n < 0) throw std::runtime_error("carried multipliers: malformed count");
    std::vector<CarriedMultiplier> out;
    for (std::int64_t i = 0; i < n; ++i) {
        CarriedMultiplier c;
        c.id = r.get<std::int32_t>();
        c.holders = r.get<std::uint64_t>();
        c.rho = r.get<double>();
        c.lambda = r.get_vector();
        out.push_back(std::move(c));
    }
    return out;
}

Bytes encode(CommandKind kind) {
    MessageWriter w;
    w.put(kind);
    return w.take();
}

Bytes encode(const AssignCommand& c) {
    MessageWriter w;
    w.put(CommandKind::Assign);
    put_records(w, c.bodies);
    put_carried(w, c.carry);
    return w.take();
}

Bytes encode(const StepCommand& c) {
    MessageWriter w;
    w.put(CommandKind::Step).put(c.h).put(c.t_end).put(c.kappa).put(c.width).put_list(c.widths);
    put_partition(w, c.partition);
    w.put(c.params).put(c.spec).put(c.trace_states);
    return w.take();
}

CommandKind decode_command_kind(MessageReader& r) {
    return r.get<CommandKind>();
}

AssignCommand decode_assign(MessageReader& r) {
    AssignCommand c;
    c.bodies = get_records(r);
    c.carry = get_carried(r);
    return c;
}

StepCommand decode_step(MessageReader& r) {
    StepCommand c;
    c.h = r.get<double>();
    c.t_end = r.get<double>();
    c.kappa = r.get<double>();
    c.width = r.get<double>();
    c.widths = r.get_list<double>();
    c.partition = get_partition(r);
    c.params = r.get<SolverParams>();
    c.spec = r.get<DistributedSpec>();
    c.trace_states = r.get<bool>();
    return c;
}

Bytes encode(const WorkerReport& x) {
    MessageWriter w;
    w.put(x.kind).put(x.dq).put(x.r).put(x.s).put(x.toi).put(x.kappa).put(x.failed);
    w.put(x.local_done).put(x.ok);
    w.put(x.newton_iterations).put(x.t_compute).put(x.rho_min).put(x.rho_max).put(x.rho_sum);
    w.put(x.rho_count);
    put_records(w, x.estimates);
    w.put_list(x.anderson).put(x.rho_changed);
    return w.take();
}

WorkerReport decode_report(const Bytes& b) {
    MessageReader r(b);
    WorkerReport x;
    x.kind = r.get<ReportKind>();
    x.dq = r.get<double>();
    x.r = r.get<double>();
    x.s = r.get<double>();
    x.toi = r.get<double>();
    x.kappa = r.get<double>();
    x.failed = r.get<bool>();
    x.local_done = r.get<bool>();
    x.ok = r.get<bool>();
    x.newton_iterations = r.get<std::int32_t>();
    x.t_compute = r.get<double>();
    x.rho_min = r.get<double>();
    x.rho_max = r.get<double>();
    x.rho_sum = r.get<double>();
    x.rho_count = r.get<std::int32_t>();
    x.estimates = get_records(r);
    x.anderson = r.get_list<double>();
    x.rho_changed = r.get<bool>();
    return x;
}

Bytes encode(const ControllerSignal& s) {
    MessageWriter w;
    w.put(s.kind).put(s.kappa).put_list(s.gamma).put(s.anderson_restart);
    return w.take();
}

ControllerSignal decode_signal(const Bytes& b) {
    MessageReader r(b);
    ControllerSignal s;
    s.kind = r.get<SignalKind>();
    s.kappa = r.get<double>();
    s.gamma = r.get_list<double>();
    s.anderson_restart = r.get<bool>();
    return s;
}

Bytes encode(const WorkerResult& x) {
    MessageWriter w;
    put_records(w, x.owned);
    w.put(x.failed).put(x.bodies).put(x.shared).put(x.newton_iterations).put(x.contacts);
    w.put(x.candidates)
        .put(x.owned_mass)
        .put(x.min_distance)
        .put(x.kappa)
        .put(x.t_compute)
        .put(x.t_sync);
    w.put(x.load).put(x.line_search_trials).put(x.ccd_limited).put(x.linear_iterations);
    w.put(x.al_switches);
    w.put(x.island_rounds);
    w.put(x.t_collision).put(x.t_assembly).put(x.t_linear).put(x.t_line_search);
    w.put_list(x.body_contacts);
    w.put(x.joints);
    return w.take();
}

WorkerResult decode_result(const Bytes& b) {
    MessageReader r(b);
    WorkerResult x;
    x.owned = get_records(r);
    x.failed = r.get<bool>();
    x.bodies = r.get<std::int32_t>();
    x.shared = r.get<std::int32_t>();
    x.newton_iterations = r.get<std::int32_t>();
    x.contacts = r.get<std::int32_t>();
    x.candidates = r.get<std::int32_t>();
    x.owned_mass = r.get<double>();
    x.min_distance = r.get<double>();
    x.kappa = r.get<double>();
    x.t_compute = r.get<double>();
    x.t_sync = r.get<double>();
    x.load = r.get<double>();
    x.line_search_trials = r.get<std::int32_t>();
    x.ccd_limited = r.get<std::int32_t>();
    x.linear_iterations = r.get<std::int32_t>();
    x.al_switches = r.get<std::int32_t>();
    x.island_rounds = r.get<std::int32_t>();
    x.t_collision = r.get<double>();
    x.t_assembly = r.get<double>();
    x.t_linear = r.get<double>();
    x.t_line_search = r.get<double>();
    x.body_contacts = r.get_list<BodyContactCount>();
    x.joints = r.get<JointStepStats>();
    return x;
}

}  // namespace concord
