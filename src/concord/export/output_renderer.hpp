// `concord render`: pictures of an output directory's frames with the software rasterizer,
// coloured like the web viewer.
#pragma once

#include <string>
#include <vector>

#include "concord/export/camera.hpp"
#include "concord/export/image.hpp"
#include "concord/export/palette.hpp"
#include "concord/io/output_reader.hpp"

namespace concord {

enum class ColourMode { Body, Worker, Speed, Contacts };

/// "body", "worker", "speed" or "contacts"; throws InputError "--color: ..." otherwise.
ColourMode parse_colour_mode(const std::string& name);

struct RenderOptions {
    int width = 960;
    int height = 540;
    int supersample = 2;  ///< samples per pixel along each axis
    std::string camera;   ///< parse_camera syntax; empty: the viewer's default view
    double fov_deg = 40.0;
    ColourMode colour = ColourMode::Body;
    bool planes = true;
    bool fluid = true;  ///< draw the fluid's particles (fluid/NNNNNN.npy) when the run has them
    Rgb background = {0.118f, 0.129f, 0.149f};  ///< the viewer's background
};

/// What one pass over frames.jsonl learns before any picture is drawn: the saved frames, the
/// box around every body over the whole run (so that a sequence keeps one camera), and the
/// centroid speed of every body in every frame (backward differences; frame 0 takes frame 1's).
struct RunOverview {
    std::vector<int> frames;
    std::vector<double> times;
    Eigen::AlignedBox3d bounds;
    std::vector<float> speeds;  ///< frames.size() x bodies, when asked for
    double max_speed = 0.0;
    /// stats.owners of the first frame that has them (distributed runs, docs/distributed.md):
    /// what frames without owners show, such as frame 0, whose stats are the defaults. Empty
    /// for a single-machine run.
    std::vector<int> first_owners;
    /// Whether any frame has stats.body_contacts, and the largest count in any of them (the top
    /// of the contact colour ramp, as in the viewer).
    bool has_body_contacts = false;
    int max_body_contacts = 0;
    /// Runs with a fluid: its particle radius (scene.json's fluids) and the largest particle
    /// count of any frame; the particles are in `bounds` too. Particles are coloured by speed
    /// over fluid_speed_scale = sqrt(2 |g| h), h the height of the fluid at its first frame
    /// (along up; |g| = 9.81 without gravity): the speed of a fall from the top of the water,
    /// the same scale as the web viewer's.
    bool has_fluid = false;
    double fluid_radius = 0.0;
    long max_fluid_particles = 0;
    double fluid_speed_scale = 1.0;
};

/// `with_fluid`: also read every frame's fluid file (its particles join the bounds).
RunOverview survey_run(const OutputReader& reader, const std::vector<TriMesh>& meshes,
                       bool with_speeds, bool with_fluid = true);

class OutputRenderer {
  public:
    OutputRenderer(const OutputReader& reader, std::vector<TriMesh> meshes, RenderOptions options,
                   const RunOverview& overview);

    /// The picture of one saved frame (a record of the surveyed run).
    Image render(const FrameRecord& frame) const;

    const Camera& camera() const { return camera_; }
    /// Empty, or why the requested colour mode could not be used (then bodies get body colours).
    /// ColourMode::Worker on a run without stats.owners is an InputError instead; so is a frame
    /// whose stats.owners or stats.body_contacts does not have one entry per body.
    const std::string& colour_note() const { return colour_note_; }
    long triangles_per_frame() const { return triangles_; }
    /// Fluid particles drawn in the last render() (0 without a fluid or with options.fluid off).
    long particles_drawn() const { return particles_; }

  private:
    std::vector<Rgb> body_colours(const FrameRecord& frame) const;
    /// InputError naming `where` unless there is one owner per body.
    void check_owners(const std::vector<int>& owners, const std::string& where) const;
    /// The same for a frame's stats.body_contacts.
    void check_body_contacts(const FrameRecord& frame) const;

    const OutputReader& reader_;
    std::vector<TriMesh> meshes_;
    std::vector<MatX> modes_;  ///< per body: Phi at its vertices (empty for affine bodies)
    RenderOptions options_;
    const RunOverview& overview_;
    Camera camera_;
    ColourMode mode_;
    std::string colour_note_;
    long triangles_ = 0;
    mutable long particles_ = 0;
};

}  // namespace concord
