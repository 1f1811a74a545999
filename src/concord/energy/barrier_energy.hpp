// IPC contact barrier (Li et al. 2020): kappa * sum over active pairs of b(d^2, dhat^2), with
// the parallel-edge mollifier on edge-edge pairs, mapped to the bodies' affine coordinates.
#pragma once

#include "concord/energy/contact_replication.hpp"
#include "concord/energy/contact_set.hpp"
#include "concord/energy/energy.hpp"

namespace concord {

class BarrierEnergy final : public Energy {
public:
    /// body_movable[b]: whether body b's DoFs can change (dynamic or kinematic). Blocks of
    /// static bodies are never produced.
    BarrierEnergy(const ContactSurface& surface, const std::vector<HalfSpace>& planes,
                  std::vector<bool> body_movable, double dhat);

    void set_contacts(const ContactSet* contacts) { contacts_ = contacts; }
    /// Weights every pair by 1/kappa_c (a worker's share in a distributed solve); null: 1.
    /// Kept by reference. Normal forces are weighted too, so friction lagged from them is.
    void set_replication(const ContactReplication* r) { replication_ = r; }
    void set_stiffness(double kappa) { kappa_ = kappa; }
    double stiffness() const { return kappa_; }
    double dhat() const { return dhat_; }

    std::string name() const override { return "barrier"; }
    double value(const VecX& q) const override;
    void add_gradient(const VecX& q, VecX& g) const override;
    void add_hessian(const VecX& q, HessianBlocks& H, bool project_psd) const override;

    /// Normal force magnitude kappa |db/dd| (the scalar friction uses as lambda), per contact in
    /// the order point_triangle, edge_edge, point_plane.
    std::vector<double> normal_forces(const VecX& q) const;

private:
    const ContactSurface& surface_;
    const std::vector<HalfSpace>& planes_;
    std::vector<bool> movable_;
    double dhat_;
    double kappa_ = 1.0;
    const ContactSet* contacts_ = nullptr;
    const ContactReplication* replication_ = nullptr;
};

}  // namespace concord
