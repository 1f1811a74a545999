#include "concord/export/gltf_export.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "concord/export/glb_builder.hpp"
#include "concord/export/palette.hpp"
#include "concord/export/polar_trs.hpp"
#include "concord/export/selected_frames.hpp"
#include "concord/io/output_layout.hpp"
#include "concord/math/error.hpp"

namespace concord {

namespace {

/// Index of the first mesh in `meshes` equal to meshes[i] (exact same vertices and faces).
std::vector<int> distinct_mesh_of(const std::vector<TriMesh>& meshes) {
    std::vector<int> first(meshes.size());
    // Bucket by sizes first, so that only plausible duplicates are compared element-wise.
    std::map<std::pair<Eigen::Index, Eigen::Index>, std::vector<int>> by_size;
    for (std::size_t i = 0; i < meshes.size(); ++i) {
        const auto& m = meshes[i];
        auto& bucket = by_size[{m.vertices.rows(), m.faces.rows()}];
        first[i] = static_cast<int>(i);
        for (int j : bucket) {
            if (meshes[j].vertices == m.vertices && meshes[j].faces == m.faces) {
                first[i] = j;
                break;
            }
        }
        if (first[i] == static_cast<int>(i)) bucket.push_back(static_cast<int>(i));
    }
    return first;
}

/// Local vertices of a body in a frame: X for an affine body, X + Phi eta (eta = row[12..]) for
/// a reduced elastic one, the shape that glTF's morph targets give before the node's TRS.
Vertices deformed_local_vertices(const TriMesh& mesh, const MatX& vertex_modes, const VecX& row) {
    Vertices local = mesh.vertices;
    const VecX u = vertex_modes * row.tail(vertex_modes.cols());
    for (Eigen::Index v = 0; v < local.rows(); ++v) local.row(v) += u.segment<3>(3 * v).transpose();
    return local;
}

/// One POSITION morph target per mode of an elastic body: mode k's displacement Phi_k at the
/// mesh vertices, in local coordinates. glTF requires min and max on these accessors.
nlohmann::json morph_targets(GlbBuilder& glb, const MatX& vertex_modes) {
    nlohmann::json targets = nlohmann::json::array();
    std::vector<float> displacement(static_cast<std::size_t>(vertex_modes.rows()));
    for (Eigen::Index k = 0; k < vertex_modes.cols(); ++k) {
        for (Eigen::Index r = 0; r < vertex_modes.rows(); ++r)
            displacement[static_cast<std::size_t>(r)] = static_cast<float>(vertex_modes(r, k));
        targets.push_back(
            {{"POSITION", glb.add_floats(displacement, "VEC3", GlbBuilder::kArrayBuffer, true)}});
    }
    return targets;
}

nlohmann::json vec3_json(const Vec3& v) {
    return {v.x(), v.y(), v.z()};
}

/// A square of side `size` in the plane, centred at `centre` projected onto it.
void add_plane(GlbBuilder& glb, const PlaneSpec& plane, const Vec3& centre, double size,
               int material, int index) {
    const Vec3 n = plane.normal.normalized();
    const Vec3 c = centre - n * n.dot(centre - plane.point);
    Vec3 u = n.unitOrthogonal();
    Vec3 v = n.cross(u);
    u *= size / 2;
    v *= size / 2;
    std::vector<float> positions;
    for (const Vec3& corner : {Vec3(c - u - v), Vec3(c + u - v), Vec3(c + u + v), Vec3(c - u + v)})
        for (int k = 0; k < 3; ++k) positions.push_back(static_cast<float>(corner[k]));
    const int pos = glb.add_floats(positions, "VEC3", GlbBuilder::kArrayBuffer, true);
    const int idx = glb.add_indices({0, 1, 2, 0, 2, 3});
    auto& doc = glb.document();
    doc["meshes"].push_back(
        {{"name", "plane_" + std::to_string(index)},
         {"primitives",
          {{{"attributes", {{"POSITION", pos}}}, {"indices", idx}, {"material", material}}}}});
    doc["nodes"].push_back({{"name", "plane_" + std::to_string(index)},
                            {"mesh", static_cast<int>(doc["meshes"].size()) - 1}});
}

}  // namespace

GltfExportSummary export_gltf(const OutputReader& reader, const std::string& path,
                              const GltfExportOptions& options) {
    const auto& bodies = reader.bodies();
    const std::vector<TriMesh> meshes = reader.load_meshes();
    const std::vector<int> mesh_of = distinct_mesh_of(meshes);
    const std::size_t n = bodies.size();
    // Reduced elastic bodies: Phi at the mesh vertices (3 rows per vertex, one column per mode);
    // empty for affine bodies.
    std::vector<MatX> modes(n);
    for (std::size_t b = 0; b < n; ++b) {
        modes[b] = reader.load_modes(static_cast<int>(b));
        if (modes[b].cols() > 0 && modes[b].rows() != 3 * meshes[b].vertices.rows())
            throw InputError(
                (std::filesystem::path(reader.directory()) / bodies[b].modes).string() +
                ": num_vertices " + std::to_string(modes[b].rows() / 3) + " differs from the " +
                std::to_string(meshes[b].vertices.rows()) + " vertices of " + bodies[b].mesh);
    }
    const std::string frames_file =
        (std::filesystem::path(reader.directory()) / output_layout::kFrames).string();

    // Keyframes, streamed: times and per-body TRS tracks.
    std::vector<float> times;
    std::vector<std::vector<float>> translation(n), rotation(n), scale(n);
    std::vector<std::vector<float>> weights(n);  // elastic bodies: eta of every frame, in order
    std::vector<TRS> first_pose(n);
    std::vector<VecX> first_eta(n);
    std::vector<Eigen::Quaterniond> previous(n);
    double start_time = 0.0, last_time = 0.0;
    int last_frame = -1;
    double max_error = 0.0;
    Eigen::AlignedBox3d bounds;
    const int count = for_each_selected_frame(reader, options.frames, [&](const FrameRecord& r) {
        if (times.empty()) {
            start_time = r.time;
        } else if (!(r.time > last_time)) {
            throw InputError(frames_file + ": frame " + std::to_string(r.frame) + ": time " +
                             std::to_string(r.time) + " does not increase after frame " +
                             std::to_string(last_frame) +
                             " (animation keyframes need increasing times)");
        }
        last_time = r.time;
        last_frame = r.frame;
        times.push_back(static_cast<float>(r.time - start_time));
        for (std::size_t b = 0; b < n; ++b) {
            const AffineMap map = affine_map_from_row(r.q[b]);
            TRS trs = trs_from_affine(map);
            // q and -q are the same rotation; keeping consecutive keys in one hemisphere makes
            // the player's slerp take the short way round.
            if (times.size() > 1 && previous[b].dot(trs.rotation) < 0)
                trs.rotation.coeffs() = -trs.rotation.coeffs();
            previous[b] = trs.rotation;
            const Eigen::Index m = modes[b].cols();
            // Elastic bodies: the morph targets reproduce X + Phi eta exactly, so the TRS error
            // is measured on the deformed local vertices.
            const Vertices deformed =
                m > 0 ? deformed_local_vertices(meshes[b], modes[b], r.q[b]) : Vertices();
            const Vertices& local = m > 0 ? deformed : meshes[b].vertices;
            if (times.size() == 1) {
                first_pose[b] = trs;
                if (m > 0) first_eta[b] = r.q[b].tail(m);
                for (Eigen::Index v = 0; v < local.rows(); ++v)
                    bounds.extend(map.apply(local.row(v).transpose()));
            }
            max_error = std::max(max_error, trs_error(trs, map, local));
            for (Eigen::Index k = 0; k < m; ++k)
                weights[b].push_back(static_cast<float>(r.q[b][12 + k]));
            for (int k = 0; k < 3; ++k) {
                translation[b].push_back(static_cast<float>(trs.translation[k]));
                scale[b].push_back(static_cast<float>(trs.scale[k]));
            }
            // glTF orders quaternions x, y, z, w.
            for (double c :
                 {trs.rotation.x(), trs.rotation.y(), trs.rotation.z(), trs.rotation.w()})
                rotation[b].push_back(static_cast<float>(c));
        }
    });

    GlbBuilder glb;
    auto& doc = glb.document();
    doc["asset"]["extras"] = {
        {"source", reader.directory()}, {"trs_max_error_m", max_error}, {"frames", count}};
    doc["scene"] = 0;
    doc["meshes"] = nlohmann::json::array();
    doc["nodes"] = nlohmann::json::array();
    doc["materials"] = nlohmann::json::array();

    std::map<int, std::pair<int, int>> mesh_accessors;  // distinct mesh -> (POSITION, indices)
    std::vector<nlohmann::json> targets_of(n);          // elastic bodies: their morph targets
    int elastic = 0;
    for (std::size_t b = 0; b < n; ++b) {
        const int m = mesh_of[b];
        if (!mesh_accessors.count(m)) {
            const TriMesh& mesh = meshes[static_cast<std::size_t>(m)];
            std::vector<float> positions(static_cast<std::size_t>(mesh.vertices.size()));
            for (Eigen::Index v = 0; v < mesh.vertices.rows(); ++v)
                for (int k = 0; k < 3; ++k)
                    positions[static_cast<std::size_t>(3 * v + k)] =
                        static_cast<float>(mesh.vertices(v, k));
            std::vector<std::uint32_t> indices;
            indices.reserve(static_cast<std::size_t>(mesh.faces.size()));
            for (Eigen::Index f = 0; f < mesh.faces.rows(); ++f)
                for (int k = 0; k < 3; ++k)
                    indices.push_back(static_cast<std::uint32_t>(mesh.faces(f, k)));
            mesh_accessors[m] = {glb.add_floats(positions, "VEC3", GlbBuilder::kArrayBuffer, true),
                                 glb.add_indices(indices)};
        }
        const auto [pos, idx] = mesh_accessors[m];
        const Rgb c = body_colour(static_cast<int>(b));
        doc["materials"].push_back({{"name", bodies[b].name},
                                    {"pbrMetallicRoughness",
                                     {{"baseColorFactor", {c[0], c[1], c[2], 1.0}},
                                      {"metallicFactor", 0.0},
                                      {"roughnessFactor", 0.8}}}});
        nlohmann::json primitive = {
            {"attributes", {{"POSITION", pos}}}, {"indices", idx}, {"material", b}};
        nlohmann::json mesh = {{"name", bodies[b].name}};
        const TRS& t = first_pose[b];
        nlohmann::json node = {
            {"name", bodies[b].name},
            {"mesh", b},
            {"translation", vec3_json(t.translation)},
            {"rotation", {t.rotation.x(), t.rotation.y(), t.rotation.z(), t.rotation.w()}},
            {"scale", vec3_json(t.scale)}};
        if (const Eigen::Index num_modes = modes[b].cols(); num_modes > 0) {
            // Every body has a glTF mesh of its own (sharing only vertex and index accessors),
            // so targets never reach an affine body with the same geometry. Elastic bodies with
            // the same geometry and the same mode values share the target accessors too.
            ++elastic;
            for (std::size_t j = 0; j < b && targets_of[b].is_null(); ++j)
                if (!targets_of[j].is_null() && mesh_of[j] == mesh_of[b] &&
                    modes[j].cols() == num_modes && modes[j] == modes[b])
                    targets_of[b] = targets_of[j];
            if (targets_of[b].is_null()) targets_of[b] = morph_targets(glb, modes[b]);
            primitive["targets"] = targets_of[b];
            nlohmann::json names = nlohmann::json::array();
            for (Eigen::Index k = 0; k < num_modes; ++k)
                names.push_back("mode_" + std::to_string(k));
            mesh["weights"] = std::vector<double>(static_cast<std::size_t>(num_modes), 0.0);
            mesh["extras"] = {{"targetNames", names}};  // the names Blender and three.js show
            // The node starts in the first selected frame, its shape included (as its TRS).
            if (first_eta[b].size() == num_modes)
                node["weights"] =
                    std::vector<double>(first_eta[b].data(), first_eta[b].data() + num_modes);
        }
        mesh["primitives"] = nlohmann::json::array({primitive});
        doc["meshes"].push_back(mesh);
        doc["nodes"].push_back(node);
    }

    if (options.planes && !reader.planes().empty()) {
        doc["materials"].push_back({{"name", "plane"},
                                    {"doubleSided", true},
                                    {"pbrMetallicRoughness",
                                     {{"baseColorFactor", {0.54, 0.56, 0.6, 1.0}},
                                      {"metallicFactor", 0.0},
                                      {"roughnessFactor", 1.0}}}});
        const int material = static_cast<int>(doc["materials"].size()) - 1;
        const Vec3 centre = bounds.isEmpty() ? Vec3(Vec3::Zero()) : Vec3(bounds.center());
        const double size = 4.0 * std::max(1.0, bounds.isEmpty() ? 1.0 : bounds.diagonal().norm());
        for (std::size_t i = 0; i < reader.planes().size(); ++i)
            add_plane(glb, reader.planes()[i], centre, size, material, static_cast<int>(i));
    }

    nlohmann::json roots = nlohmann::json::array();
    for (std::size_t i = 0; i < doc["nodes"].size(); ++i) roots.push_back(i);
    doc["scenes"] = {{{"name", "concord"}}};
    if (!roots.empty()) doc["scenes"][0]["nodes"] = roots;  // glTF forbids an empty node list

    int animated = 0;
    if (times.size() >= 2) {
        const int input = glb.add_floats(times, "SCALAR", std::nullopt, true);
        nlohmann::json samplers = nlohmann::json::array(), channels = nlohmann::json::array();
        for (std::size_t b = 0; b < n; ++b) {
            if (bodies[b].motion == MotionType::Static) continue;
            ++animated;
            const std::pair<const char*, const std::vector<float>*> tracks[] = {
                {"translation", &translation[b]}, {"rotation", &rotation[b]}, {"scale", &scale[b]}};
            for (const auto& [property, values] : tracks) {
                const bool is_rotation = std::string(property) == "rotation";
                const int output =
                    glb.add_floats(*values, is_rotation ? "VEC4" : "VEC3", std::nullopt, false);
                samplers.push_back(
                    {{"input", input}, {"output", output}, {"interpolation", "LINEAR"}});
                channels.push_back({{"sampler", samplers.size() - 1},
                                    {"target", {{"node", b}, {"path", property}}}});
            }
            if (!weights[b].empty()) {
                // glTF: a "weights" sampler's output holds, per keyframe, one weight per morph
                // target (count = keyframes x modes); LINEAR interpolates eta like p and A.
                const int output = glb.add_floats(weights[b], "SCALAR", std::nullopt, false);
                samplers.push_back(
                    {{"input", input}, {"output", output}, {"interpolation", "LINEAR"}});
                channels.push_back({{"sampler", samplers.size() - 1},
                                    {"target", {{"node", b}, {"path", "weights"}}}});
            }
        }
        if (!channels.empty())
            doc["animations"] = {
                {{"name", "simulation"}, {"samplers", samplers}, {"channels", channels}}};
    }
    for (const char* key : {"materials", "meshes", "nodes"})
        if (doc[key].empty()) doc.erase(key);

    glb.write(path);
    GltfExportSummary s;
    s.bodies = static_cast<int>(n);
    s.distinct_meshes = static_cast<int>(mesh_accessors.size());
    s.frames = count;
    s.animated_bodies = animated;
    s.elastic_bodies = elastic;
    s.max_trs_error = max_error;
    std::error_code ec;
    s.bytes = std::filesystem::file_size(path, ec);
    return s;
}

}  // namespace concord
