// Robots from URDF files (scene key "robots", docs/robots.md): links become bodies, joints
// become joints, through Debian's liburdfdom parser.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "concord/scene/scene_spec.hpp"

namespace concord {

/// Which pairs of a robot's own links may touch.
enum class SelfCollision {
    NonAdjacent,  ///< every pair except the two links of a joint (the URDF convention)
    All,          ///< every pair (the links must then start apart)
    None,         ///< no pair
};

/// One entry of "robots", as the scene file gives it.
struct RobotSpec {
    std::string name;                  ///< prefixes its bodies (NAME.LINK) and joints (NAME.JOINT)
    std::string urdf;                  ///< absolute path of the URDF file
    Vec3 position = Vec3::Zero();      ///< of the root link's frame
    Mat3 rotation = Mat3::Identity();  ///< of the root link's frame
    bool fixed_base = true;            ///< root link static ("fixed") or dynamic ("free")
    std::string material_name;         ///< as in a body: named material, or empty with `material`
    MaterialSpec material;  ///< density for links without <inertial>; Young's modulus for all
    SelfCollision self_collision = SelfCollision::NonAdjacent;
    /// Folders searched for package://PKG/PATH meshes (PKG/PATH inside each), absolute.
    std::vector<std::string> package_paths;
    /// Drives by URDF joint name (without the robot prefix).
    std::map<std::string, JointDrive> joint_targets;
};

/// What a robot adds to a scene: bodies and joints (joint body indices count from
/// `first_body`, the index the robot's first body will have) and the body pairs, a < b, that
/// never touch.
struct RobotParts {
    std::vector<BodySpec> bodies;
    std::vector<JointSpec> joints;
    std::vector<std::pair<int, int>> exclude;
};

/// Reads the robot's URDF. Links with <collision> geometry become bodies (box, cylinder,
/// sphere and mesh elements, several per link as a compound shape; mass properties from
/// <inertial>, or from the geometry and the density without one); a link without geometry
/// attached by a fixed joint is merged into its parent (its inertial added), and a root link
/// without geometry under a fixed base is the world. Joints: revolute (with its limits),
/// continuous, prismatic (with its limits) and fixed; <dynamics damping> becomes a damper on the
/// joint coordinate. Throws InputError "URDF: element: problem" for a file that does not parse,
/// a missing mesh, an unsupported joint type (floating, planar), <mimic>, joint friction, a link
/// without geometry that would move, a name that is not file-safe, an unrealisable inertia, or
/// a joint target naming no movable joint.
RobotParts import_urdf_robot(const RobotSpec& robot, int first_body);

}  // namespace concord
