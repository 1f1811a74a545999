#include "concord/scene/modal_basis_json.hpp"

#include <filesystem>
#include <vector>

#include "concord/elastic/beam_modes.hpp"
#include "concord/elastic/fem_modes.hpp"
#include "concord/elastic/modal_damping.hpp"
#include "concord/elastic/pod_modes.hpp"
#include "concord/elastic/sampled_modes.hpp"
#include "concord/math/error.hpp"
#include "concord/scene/json_file.hpp"

namespace concord {

namespace {

constexpr int kMaxModes = 1000;
constexpr int kMaxCount = 1 << 24;

/// [[x, y, z], ...] -> n x 3.
Vertices read_points(const JsonNode& node) {
    const std::size_t n = node.array_size();
    if (n == 0) node.fail("expected at least one point");
    Vertices p(static_cast<Eigen::Index>(n), 3);
    for (std::size_t i = 0; i < n; ++i) p.row(static_cast<Eigen::Index>(i)) = node.element(i).vec3().transpose();
    return p;
}

VecX read_vector(const JsonNode& node, bool positive = false, bool non_negative = false) {
    const std::size_t n = node.array_size();
    VecX v(static_cast<Eigen::Index>(n));
    for (std::size_t i = 0; i < n; ++i) {
        const JsonNode e = node.element(i);
        v[static_cast<Eigen::Index>(i)] =
            positive ? e.positive_number() : non_negative ? e.non_negative_number() : e.number();
    }
    return v;
}

/// A dense matrix [[row], ...] with `cols` columns (-1: any, all rows equal).
MatX read_dense(const JsonNode& node) {
    const std::size_t rows = node.array_size();
    if (rows == 0) node.fail("expected a non-empty array of rows");
    std::size_t cols = 0;
    MatX m;
    for (std::size_t i = 0; i < rows; ++i) {
        const JsonNode r = node.element(i);
        const std::size_t c = r.array_size();
        if (i == 0) {
            cols = c;
            m.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
        } else if (c != cols) {
            r.fail("expected " + std::to_string(cols) + " numbers like the first row, got " +
                   std::to_string(c));
        }
        for (std::size_t j = 0; j < c; ++j)
            m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = r.element(j).number();
    }
    return m;
}

/// A square matrix of size n: dense rows, or {"size": n, "entries": [[i, j, value], ...]}
/// (entries summed; give both triangles of a symmetric matrix).
Eigen::SparseMatrix<double> read_square(const JsonNode& node, int n) {
    Eigen::SparseMatrix<double> s(n, n);
    if (node.value().is_object()) {
        node.expect_object({"size", "entries"});
        const int size = node.child("size").integer(1, kMaxCount);
        if (size != n) node.child("size").fail("expected " + std::to_string(n) + " (3 per node)");
        const JsonNode entries = node.child("entries");
        std::vector<Eigen::Triplet<double>> t;
        for (std::size_t k = 0; k < entries.array_size(); ++k) {
            const JsonNode e = entries.element(k);
            if (e.array_size() != 3) e.fail("expected [row, column, value]");
            t.emplace_back(e.element(0).integer(0, n - 1), e.element(1).integer(0, n - 1),
                           e.element(2).number());
        }
        s.setFromTriplets(t.begin(), t.end());
        return s;
    }
    const MatX d = read_dense(node);
    if (d.rows() != n || d.cols() != n)
        node.fail("expected a " + std::to_string(n) + " x " + std::to_string(n) + " matrix, got " +
                  std::to_string(d.rows()) + " x " + std::to_string(d.cols()));
    return d.sparseView();
}

/// Columns of 3n numbers, one array per column: [[...3n...], ...] -> 3n x count.
MatX read_fields(const JsonNode& node, Eigen::Index n_points) {
    const std::size_t count = node.array_size();
    if (count == 0) node.fail("expected at least one field");
    MatX m(3 * n_points, static_cast<Eigen::Index>(count));
    for (std::size_t k = 0; k < count; ++k) {
        const JsonNode f = node.element(k);
        if (static_cast<Eigen::Index>(f.array_size()) != 3 * n_points)
            f.fail("expected " + std::to_string(3 * n_points) + " numbers (3 per point), got " +
                   std::to_string(f.array_size()));
        for (Eigen::Index i = 0; i < 3 * n_points; ++i)
            m(i, static_cast<Eigen::Index>(k)) = f.element(static_cast<std::size_t>(i)).number();
    }
    return m;
}

template <typename Enum>
Enum read_choice(const JsonNode& node, std::initializer_list<std::pair<const char*, Enum>> choices) {
    const std::string s = node.string();
    std::string list;
    for (const auto& [name, value] : choices) {
        if (s == name) return value;
        list += list.empty() ? "" : ", ";
        list += std::string("\"") + name + "\"";
    }
    node.fail("expected one of " + list + ", got " + node.describe());
}

BeamParams read_beam(const JsonNode& p) {
    p.expect_object({"type", "damping", "length", "section", "width", "height", "radius",
                     "youngs_modulus", "shear_modulus", "poisson_ratio", "density", "axial_modes",
                     "axial_ends", "bending_y_modes", "bending_z_modes", "bending_support",
                     "torsion_modes", "torsion_ends", "plane_section_rotation"});
    BeamParams b;
    const std::initializer_list<std::pair<const char*, BeamEnds>> ends{
        {"fixed_free", BeamEnds::fixed_free},
        {"fixed_fixed", BeamEnds::fixed_fixed},
        {"free_free", BeamEnds::free_free}};
    if (auto n = p.find("length")) b.length = n->positive_number();
    if (auto n = p.find("section"))
        b.section = read_choice<BeamSection>(
            *n, {{"rectangle", BeamSection::rectangle}, {"circle", BeamSection::circle}});
    if (auto n = p.find("width")) b.width = n->positive_number();
    if (auto n = p.find("height")) b.height = n->positive_number();
    if (auto n = p.find("radius")) b.radius = n->positive_number();
    if (auto n = p.find("youngs_modulus")) b.youngs_modulus = n->positive_number();
    if (auto n = p.find("shear_modulus")) b.shear_modulus = n->non_negative_number();
    if (auto n = p.find("poisson_ratio")) b.poisson_ratio = n->number();
    if (auto n = p.find("density")) b.density = n->positive_number();
    if (auto n = p.find("axial_modes")) b.axial_modes = n->integer(0, kMaxModes);
    if (auto n = p.find("axial_ends")) b.axial_ends = read_choice<BeamEnds>(*n, ends);
    if (auto n = p.find("bending_y_modes")) b.bending_y_modes = n->integer(0, kMaxModes);
    if (auto n = p.find("bending_z_modes")) b.bending_z_modes = n->integer(0, kMaxModes);
    if (auto n = p.find("bending_support"))
        b.bending_support = read_choice<BeamBendingSupport>(
            *n, {{"cantilever", BeamBendingSupport::cantilever},
                 {"pinned_pinned", BeamBendingSupport::pinned_pinned}});
    if (auto n = p.find("torsion_modes")) b.torsion_modes = n->integer(0, kMaxModes);
    if (auto n = p.find("torsion_ends")) b.torsion_ends = read_choice<BeamEnds>(*n, ends);
    if (auto n = p.find("plane_section_rotation")) b.plane_section_rotation = n->boolean();
    if (b.axial_modes + b.bending_y_modes + b.bending_z_modes + b.torsion_modes == 0)
        p.fail("a beam basis needs at least one mode (axial_modes, bending_y_modes, "
               "bending_z_modes or torsion_modes)");
    return b;
}

PodParams read_pod(const JsonNode& p) {
    p.expect_object({"type", "damping", "file", "points", "masses", "snapshots", "num_modes",
                     "energy_fraction", "stiffness", "frequencies"});
    PodParams pod;
    pod.points = read_points(p.child("points"));
    pod.point_masses = read_vector(p.child("masses"), true);
    if (pod.point_masses.size() != pod.points.rows())
        p.child("masses").fail("expected one mass per point (" + std::to_string(pod.points.rows()) + ")");
    pod.snapshots = read_fields(p.child("snapshots"), pod.points.rows());
    if (auto n = p.find("num_modes")) pod.num_modes = n->integer(0, kMaxModes);
    if (auto n = p.find("energy_fraction")) pod.energy_fraction = n->positive_number();
    if (p.has("stiffness") == p.has("frequencies"))
        p.fail("give exactly one of stiffness (per mode, omega^2) and frequencies (rad/s)");
    if (auto n = p.find("stiffness")) pod.stiffness = read_vector(*n, false, true);
    if (auto n = p.find("frequencies")) pod.frequencies = read_vector(*n, false, true);
    return pod;
}

FemParams read_fem(const JsonNode& p) {
    p.expect_object({"type", "damping", "file", "nodes", "mass", "stiffness", "damping_matrix",
                     "num_modes", "constrained"});
    FemParams f;
    f.nodes = read_points(p.child("nodes"));
    const int n = 3 * static_cast<int>(f.nodes.rows());
    f.mass = read_square(p.child("mass"), n);
    f.stiffness = read_square(p.child("stiffness"), n);
    if (auto c = p.find("damping_matrix")) f.damping = read_square(*c, n);
    if (auto c = p.find("num_modes")) f.num_modes = c->integer(1, kMaxModes);
    if (auto c = p.find("constrained")) f.constrained = c->boolean();
    return f;
}

SampledParams read_sampled(const JsonNode& p) {
    p.expect_object({"type", "damping", "file", "points", "modes", "masses", "total_mass",
                     "stiffness", "damping_matrix", "mode_names"});
    SampledParams s;
    s.points = read_points(p.child("points"));
    s.mode_values = read_fields(p.child("modes"), s.points.rows());
    const auto m = s.mode_values.cols();
    if (p.has("masses") == p.has("total_mass")) p.fail("give exactly one of masses and total_mass");
    if (auto n = p.find("masses")) {
        s.point_masses = read_vector(*n, true);
        if (s.point_masses.size() != s.points.rows())
            n->fail("expected one mass per point (" + std::to_string(s.points.rows()) + ")");
    }
    if (auto n = p.find("total_mass")) s.total_mass = n->positive_number();
    const JsonNode k = p.child("stiffness");
    if (k.array_size() > 0 && k.element(0).value().is_array())
        s.stiffness = read_dense(k);
    else
        s.stiffness = read_vector(k, false, true);
    if (s.stiffness.rows() != m)
        k.fail("expected " + std::to_string(m) + " entries (one per mode) or an m x m matrix");
    if (auto c = p.find("damping_matrix")) {
        if (c->array_size() > 0 && c->element(0).value().is_array())
            s.damping = read_dense(*c);
        else
            s.damping = read_vector(*c, false, true);
    }
    if (auto names = p.find("mode_names"))
        for (std::size_t i = 0; i < names->array_size(); ++i) s.mode_names.push_back(names->element(i).name());
    return s;
}

void apply_damping(const JsonNode& node, ModalBasis& basis) {
    node.expect_object({"ratio", "rayleigh"});
    if (node.has("ratio") == node.has("rayleigh")) node.fail("give exactly one of ratio and rayleigh");
    if (auto r = node.find("ratio")) {
        VecX zeta;
        if (r->value().is_array()) {
            zeta = read_vector(*r, false, true);
            if (zeta.size() != basis.num_modes)
                r->fail("expected one ratio per mode (" + std::to_string(basis.num_modes) + ")");
        } else {
            zeta = VecX::Constant(basis.num_modes, r->non_negative_number());
        }
        basis.modal_damping = ratio_modal_damping(basis.modal_mass, basis.modal_stiffness, zeta);
    } else {
        const JsonNode ab = node.child("rayleigh");
        if (ab.array_size() != 2) ab.fail("expected [alpha, beta]");
        basis.modal_damping = rayleigh_modal_damping(basis.modal_mass, basis.modal_stiffness,
                                                     ab.element(0).non_negative_number(),
                                                     ab.element(1).non_negative_number());
    }
}

}  // namespace

ModalBasis modal_basis_from_json(const JsonNode& node, const std::string& base_dir) {
    if (!node.value().is_object()) node.fail("expected an object with a \"type\"");
    const std::string type = node.child("type").string();
    // pod, fem and sampled may keep their (large) arrays in a file with the same keys.
    nlohmann::json merged;
    std::optional<JsonNode> from_file;
    std::string file_source;
    if (auto f = node.find("file")) {
        if (type == "beam") f->fail("a beam basis has no file");
        namespace fs = std::filesystem;
        fs::path path(f->name());
        if (path.is_relative()) path = (base_dir.empty() ? fs::path(".") : fs::path(base_dir)) / path;
        std::error_code ec;
        if (!fs::is_regular_file(path, ec)) f->fail("file not found (looked for " + path.string() + ")");
        merged = read_json_file(path.string());
        if (!merged.is_object()) f->fail("the file must hold a JSON object");
        for (const auto& item : node.value().items())
            if (item.key() != "file") merged[item.key()] = item.value();
        merged["file"] = node.value()["file"];
        file_source = node.source() + " (with " + path.string() + ")";
        from_file.emplace(merged, file_source, node.path());
    }
    const JsonNode& p = from_file ? *from_file : node;
    ModalBasis basis;
    try {
        if (type == "beam")
            basis = beam_modes(read_beam(p));
        else if (type == "pod")
            basis = pod_modes(read_pod(p));
        else if (type == "fem")
            basis = fem_modes(read_fem(p));
        else if (type == "sampled")
            basis = sampled_modes(read_sampled(p));
        else
            node.child("type").fail("expected \"beam\", \"pod\", \"fem\" or \"sampled\", got " +
                                    node.child("type").describe());
    } catch (const InputError& e) {
        const std::string what = e.what();
        // Errors from JsonNode already name the file and key; generator errors get the path.
        if (what.rfind(p.source(), 0) == 0 || what.rfind(node.source(), 0) == 0) throw;
        p.fail(what);
    }
    if (auto d = p.find("damping")) apply_damping(*d, basis);
    return basis;
}

}  // namespace concord
