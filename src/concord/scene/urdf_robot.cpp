#include "concord/scene/urdf_robot.hpp"

#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <optional>
#include <sstream>

#include "concord/geometry/mass_properties.hpp"
#include "concord/math/error.hpp"
#include "concord/math/regular_file.hpp"
#include "concord/scene/body_name.hpp"

namespace concord {

namespace {

namespace fs = std::filesystem;
using Pose = Eigen::Isometry3d;

Pose to_pose(const urdf::Pose& p) {
    Pose T = Pose::Identity();
    const urdf::Rotation& r = p.rotation;
    T.linear() = Eigen::Quaterniond(r.w, r.x, r.y, r.z).normalized().toRotationMatrix();
    T.translation() = Vec3(p.position.x, p.position.y, p.position.z);
    return T;
}

Vec3 to_vec(const urdf::Vector3& v) {
    return {v.x, v.y, v.z};
}

/// Collects what console_bridge would print while the parser runs, so that a file that does
/// not parse is reported in one line instead of on stderr.
class CapturedLog final : public console_bridge::OutputHandler {
  public:
    CapturedLog() { console_bridge::useOutputHandler(this); }
    ~CapturedLog() override { console_bridge::restorePreviousOutputHandler(); }
    CapturedLog(const CapturedLog&) = delete;
    CapturedLog& operator=(const CapturedLog&) = delete;
    void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
        if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR && first_error.empty())
            first_error = text;
    }
    std::string first_error;
};

/// A body-local inertial: mass, centre of mass and inertia about it (body axes).
struct Inertial {
    double mass = 0.0;
    Vec3 com = Vec3::Zero();
    Mat3 inertia = Mat3::Zero();
};

/// Where a link's frame sits: on a body (or the world, body -1) at `link_in_owner`.
struct Owner {
    int body = -1;
    Pose link_in_owner = Pose::Identity();
};

class Importer {
  public:
    Importer(const RobotSpec& robot, int first_body) : robot_(robot), first_body_(first_body) {}

    RobotParts run() {
        const urdf::ModelInterfaceSharedPtr model = parse();
        const urdf::LinkConstSharedPtr root = model->getRoot();
        if (!root) fail("the robot has no root link");
        Pose T_root = Pose::Identity();
        T_root.linear() = robot_.rotation;
        T_root.translation() = robot_.position;
        add_link(*model, *root, T_root, nullptr, Owner{});
        apply_targets();
        finish_inertia();
        collision_pairs();
        return std::move(parts_);
    }

  private:
    [[noreturn]] void fail(const std::string& message) const {
        throw InputError(robot_.urdf + ": " + message);
    }

    urdf::ModelInterfaceSharedPtr parse() const {
        require_regular_file(robot_.urdf);
        std::ifstream in(robot_.urdf, std::ios::binary);
        if (!in) fail("cannot read the file");
        std::ostringstream text;
        text << in.rdbuf();
        CapturedLog log;
        urdf::ModelInterfaceSharedPtr model;
        try {
            model = urdf::parseURDF(text.str());
        } catch (const std::exception& e) {
            fail(std::string("not a valid URDF: ") + e.what());
        }
        if (!model)
            fail("not a valid URDF" +
                 (log.first_error.empty() ? std::string() : ": " + log.first_error));
        return model;
    }

    std::string prefixed(const std::string& element, const std::string& name) const {
        const std::string full = robot_.name + "." + name;
        if (!is_file_safe_name(full))
            fail(element + " '" + name + "': the name becomes '" + full + "', which must be " +
                 kFileSafeNameRule);
        return full;
    }

    std::string resolve_mesh(const std::string& link, const std::string& file) const {
        const fs::path urdf_dir = fs::path(robot_.urdf).parent_path();
        std::vector<fs::path> tried;
        const std::string package = "package://", file_uri = "file://";
        if (file.rfind(package, 0) == 0) {
            const std::string rest = file.substr(package.size());
            const auto slash = rest.find('/');
            const std::string pkg = rest.substr(0, slash);
            const std::string inside = slash == std::string::npos ? "" : rest.substr(slash + 1);
            for (const std::string& dir : robot_.package_paths)
                tried.push_back(fs::path(dir) / pkg / inside);
            // The URDF inside its package (PKG/urdf/robot.urdf): the ancestor named PKG.
            for (fs::path d = urdf_dir; !d.empty() && d != d.root_path(); d = d.parent_path())
                if (d.filename() == pkg) tried.push_back(d / inside);
        } else if (file.rfind(file_uri, 0) == 0) {
            tried.push_back(fs::path(file.substr(file_uri.size())));
        } else {
            const fs::path f(file);
            tried.push_back(f.is_relative() ? urdf_dir / f : f);
        }
        std::error_code ec;
        std::string where;
        for (const fs::path& p : tried) {
            const fs::path n = fs::absolute(p, ec).lexically_normal();
            if (fs::is_regular_file(n, ec)) return n.string();
            where += (where.empty() ? "" : ", ") + n.string();
        }
        fail("link '" + link + "': mesh '" + file + "' not found (looked for " +
             (where.empty() ? "nothing: give the robot's package_paths" : where) + ")");
    }

    ShapePart collision_part(const std::string& link, const urdf::Collision& c) const {
        if (!c.geometry) fail("link '" + link + "': a <collision> without <geometry>");
        ShapePart part;
        const Pose T = to_pose(c.origin);
        part.position = T.translation();
        part.rotation = T.linear();
        ShapeSpec& s = part.shape;
        switch (c.geometry->type) {
            case urdf::Geometry::BOX: {
                const auto& b = static_cast<const urdf::Box&>(*c.geometry);
                s.kind = ShapeKind::Box;
                s.size = to_vec(b.dim);
                if (!(s.size.array() > 0.0).all())
                    fail("link '" + link + "': <box> needs a positive size");
                break;
            }
            case urdf::Geometry::SPHERE: {
                const auto& b = static_cast<const urdf::Sphere&>(*c.geometry);
                s.kind = ShapeKind::Sphere;
                s.radius = b.radius;
                if (!(s.radius > 0.0))
                    fail("link '" + link + "': <sphere> needs a positive radius");
                break;
            }
            case urdf::Geometry::CYLINDER: {
                const auto& b = static_cast<const urdf::Cylinder&>(*c.geometry);
                s.kind = ShapeKind::Cylinder;
                s.radius = b.radius;
                s.height = b.length;
                if (!(s.radius > 0.0) || !(s.height > 0.0))
                    fail("link '" + link + "': <cylinder> needs a positive radius and length");
                // URDF cylinders run along z, Concord's along y.
                part.rotation =
                    part.rotation *
                    Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitX()).toRotationMatrix();
                break;
            }
            case urdf::Geometry::MESH: {
                const auto& b = static_cast<const urdf::Mesh&>(*c.geometry);
                s.kind = ShapeKind::Mesh;
                s.file = b.filename;
                s.resolved_file = resolve_mesh(link, b.filename);
                s.scale = to_vec(b.scale);
                if (!(s.scale.array() != 0.0).all())
                    fail("link '" + link + "': mesh '" + b.filename + "' has a zero scale");
                break;
            }
        }
        return part;
    }

    static Inertial link_inertial(const urdf::Inertial& in, const Pose& link_in_body) {
        const Pose T = link_in_body * to_pose(in.origin);
        Mat3 I;
        I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
        return {in.mass, T.translation(), T.linear() * I * T.linear().transpose()};
    }

    void add_inertial(int body, const urdf::Link& link, const Pose& link_in_body) {
        if (!link.inertial || !(link.inertial->mass > 0.0)) return;
        if (body < 0) return;  // carried by the world
        const Inertial in = link_inertial(*link.inertial, link_in_body);
        const std::string problem = inertia_problem(in.mass, in.inertia);
        if (!problem.empty()) fail("link '" + link.name + "': <inertial>: " + problem);
        inertials_[static_cast<std::size_t>(body)].push_back(in);
    }

    void add_link(const urdf::ModelInterface& model, const urdf::Link& link, const Pose& T_world,
                  const urdf::Joint* via, const Owner& parent) {
        Owner here;
        const bool root = via == nullptr;
        if (link.collision_array.empty()) {
            if (root && !robot_.fixed_base)
                fail("link '" + link.name +
                     "': the root link of a free robot needs <collision> geometry");
            if (!root && via->type != urdf::Joint::FIXED)
                fail("link '" + link.name + "' moves on joint '" + via->name +
                     "' but has no <collision> geometry (give it one)");
            // Merged into its parent (or, the root of a fixed robot, into the world).
            here.body = root ? -1 : parent.body;
            here.link_in_owner =
                root ? T_world
                     : parent.link_in_owner * to_pose(via->parent_to_joint_origin_transform);
            add_inertial(here.body, link, here.link_in_owner);
        } else {
            const int b = static_cast<int>(parts_.bodies.size());
            BodySpec body;
            body.name = prefixed("link", link.name);
            body.position = T_world.translation();
            body.rotation = T_world.linear();
            body.material_name = robot_.material_name;
            body.material = robot_.material;
            body.kinematic.pivot = body.position;
            body.shape.kind = ShapeKind::Compound;
            for (const auto& c : link.collision_array) {
                if (!c) continue;
                body.shape.parts.push_back(collision_part(link.name, *c));
            }
            // A fixed base, and a link welded to it or to the world, do not move.
            const bool welded =
                !root && via->type == urdf::Joint::FIXED &&
                (parent.body < 0 ||
                 parts_.bodies[static_cast<std::size_t>(parent.body)].motion == MotionType::Static);
            if ((root && robot_.fixed_base) || welded) body.motion = MotionType::Static;
            parts_.bodies.push_back(std::move(body));
            inertials_.emplace_back();
            here.body = b;
            add_inertial(b, link, Pose::Identity());
            if (!root && !welded) add_joint(*via, parent.body, b, T_world);
        }
        for (const auto& j : link.child_joints) {
            const urdf::LinkConstSharedPtr child = model.getLink(j->child_link_name);
            if (!child) fail("joint '" + j->name + "': no link '" + j->child_link_name + "'");
            add_link(model, *child, T_world * to_pose(j->parent_to_joint_origin_transform), j.get(),
                     here);
        }
    }

    void add_joint(const urdf::Joint& u, int parent, int child, const Pose& T_child) {
        const std::string where = "joint '" + u.name + "'";
        JointSpec j;
        j.name = prefixed("joint", u.name);
        j.parent = parent < 0 ? -1 : first_body_ + parent;
        j.child = first_body_ + child;
        j.world_anchor = T_child.translation();
        const Vec3 axis = to_vec(u.axis);
        switch (u.type) {
            case urdf::Joint::REVOLUTE:
            case urdf::Joint::CONTINUOUS:
                j.type = JointType::Revolute;
                break;
            case urdf::Joint::PRISMATIC:
                j.type = JointType::Prismatic;
                break;
            case urdf::Joint::FIXED:
                j.type = JointType::Fixed;
                break;
            case urdf::Joint::FLOATING:
                fail(where +
                     ": type \"floating\" is not supported (use base \"free\" for a "
                     "robot's root, or make the child a separate body)");
            case urdf::Joint::PLANAR:
                fail(where + ": type \"planar\" is not supported");
            default:
                fail(where + ": unknown joint type");
        }
        if (u.mimic) fail(where + ": <mimic> is not supported (drive the joint with a target)");
        if (has_coordinate(j.type)) {
            if (!(axis.stableNorm() > 0.0)) fail(where + ": the axis must not be zero");
            j.axis = (T_child.linear() * axis).normalized();
            if (u.type != urdf::Joint::CONTINUOUS && u.limits) {
                if (!(u.limits->lower <= u.limits->upper))
                    fail(where + ": <limit> lower is above upper");
                j.limits.enabled = true;
                j.limits.lower = u.limits->lower;
                j.limits.upper = u.limits->upper;
            }
        }
        if (u.dynamics) {
            if (u.dynamics->friction != 0.0)
                fail(where + ": <dynamics friction> is not supported (set it to 0)");
            if (u.dynamics->damping < 0.0) fail(where + ": <dynamics damping> must be >= 0");
            if (u.dynamics->damping > 0.0) {
                if (!has_coordinate(j.type)) fail(where + ": <dynamics damping> on a fixed joint");
                j.drive.enabled = true;
                j.drive.mode = DriveMode::Velocity;
                j.drive.kd = u.dynamics->damping;
            }
        }
        urdf_joint_names_.push_back(u.name);
        parts_.joints.push_back(std::move(j));
        if (parent >= 0) adjacent_.emplace_back(std::min(parent, child), std::max(parent, child));
    }

    void apply_targets() {
        for (const auto& [name, drive] : robot_.joint_targets) {
            const auto it = std::find(urdf_joint_names_.begin(), urdf_joint_names_.end(), name);
            if (it == urdf_joint_names_.end()) {
                std::string known;
                for (std::size_t k = 0; k < parts_.joints.size(); ++k)
                    if (has_coordinate(parts_.joints[k].type))
                        known += (known.empty() ? "" : ", ") + urdf_joint_names_[k];
                fail("joint_targets: no movable joint '" + name +
                     "' (movable joints: " + (known.empty() ? "none" : known) + ")");
            }
            JointSpec& j = parts_.joints[static_cast<std::size_t>(it - urdf_joint_names_.begin())];
            if (!has_coordinate(j.type)) fail("joint_targets: joint '" + name + "' is fixed");
            // The URDF's damping adds to the drive's own damper.
            const double damping = j.drive.enabled ? j.drive.kd : 0.0;
            j.drive = drive;
            j.drive.kd += damping;
        }
    }

    void finish_inertia() {
        for (std::size_t b = 0; b < parts_.bodies.size(); ++b) {
            const std::vector<Inertial>& list = inertials_[b];
            if (list.empty()) continue;  // from the geometry and the density
            InertiaSpec total;
            total.mass = 0.0;
            Vec3 moment = Vec3::Zero();
            for (const Inertial& in : list) {
                total.mass += in.mass;
                moment += in.mass * in.com;
            }
            total.center_of_mass = moment / total.mass;
            total.inertia.setZero();
            for (const Inertial& in : list) {
                const Vec3 d = in.com - total.center_of_mass;
                total.inertia +=
                    in.inertia + in.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
            }
            parts_.bodies[b].inertia = total;
        }
    }

    void collision_pairs() {
        const int n = static_cast<int>(parts_.bodies.size());
        std::vector<std::pair<int, int>> pairs;
        switch (robot_.self_collision) {
            case SelfCollision::All:
                break;
            case SelfCollision::NonAdjacent:
                pairs = adjacent_;
                break;
            case SelfCollision::None:
                for (int a = 0; a < n; ++a)
                    for (int b = a + 1; b < n; ++b) pairs.emplace_back(a, b);
                break;
        }
        std::sort(pairs.begin(), pairs.end());
        pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
        for (const auto& [a, b] : pairs)
            parts_.exclude.emplace_back(first_body_ + a, first_body_ + b);
    }

    const RobotSpec& robot_;
    int first_body_;
    RobotParts parts_;
    std::vector<std::vector<Inertial>> inertials_;  ///< per body
    std::vector<std::string> urdf_joint_names_;     ///< per joint of parts_
    std::vector<std::pair<int, int>> adjacent_;     ///< robot-local body pairs of joints
};

}  // namespace

RobotParts import_urdf_robot(const RobotSpec& robot, int first_body) {
    return Importer(robot, first_body).run();
}

}  // namespace concord
