// Which contact pairs are active at a world's current state, how close and how hard they push:
// for analysis and plots (the Python API's World.contacts()), not used by the step itself.
#pragma once

#include <vector>

namespace concord {

class World;

enum class ContactKind {
    PointTriangle,  ///< a vertex of body_a against a face of body_b
    EdgeEdge,       ///< an edge of body_a against an edge of body_b
    PointPlane,     ///< a vertex of body_a against plane body_b (an index into the planes)
};

/// One active barrier pair (distance below dhat).
struct ContactInfo {
    ContactKind kind = ContactKind::PointPlane;
    int body_a = 0;     ///< body of the vertex (point-*) or of the first edge
    int body_b = 0;     ///< body of the face / second edge; the plane index for PointPlane
    int element_a = 0;  ///< body-local index: vertex (point-*) or edge (EdgeEdge) of body_a
    int element_b = 0;  ///< body-local face or edge of body_b; the plane index for PointPlane
    double distance = 0.0;  ///< unsigned distance, m (signed distance above the plane)
    /// kappa |db/dd| = kappa |b'(d^2)| 2 d: the barrier's normal force in the units of the
    /// incremental potential (N s^2, the h^2 of the implicit Euler step absorbed into kappa, as
    /// BarrierEnergy::normal_forces and the friction's lambda).
    double barrier_force = 0.0;
    /// barrier_force / h^2 with h the time step in use: the normal force in newtons.
    double force = 0.0;
};

struct ContactReport {
    double time = 0.0;
    double dhat = 0.0;               ///< activation distance, m
    double barrier_stiffness = 0.0;  ///< kappa the world carries into its next step
    double time_step = 0.0;          ///< h used for `force` (time_step / 2^retry level), s
    /// Point-triangle pairs first, then edge-edge, then point-plane, each sorted as the broad
    /// phase sorts its candidates (so the order does not depend on the thread count).
    std::vector<ContactInfo> contacts;
};

/// Every active pair at the world's current state, found as a step finds them: the broad phase
/// over the bodies' current positions (static-static pairs skipped), point-plane candidates of
/// the movable bodies, then the distance classification of build_contact_set with the scene's
/// dhat. The edge-edge mollifier is not applied to the force (as in normal_forces).
ContactReport report_contacts(const World& world);

}  // namespace concord
