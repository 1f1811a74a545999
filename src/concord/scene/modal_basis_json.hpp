// The scene file's modal bases ("modal_bases": {"NAME": {"type": ...}}; docs/elastic.md and
// docs/scene-format.md): reads one definition with key-path errors and runs its generator.
#pragma once

#include <string>

#include "concord/elastic/modal_basis.hpp"
#include "concord/scene/json_node.hpp"

namespace concord {

/// Builds the basis a "modal_bases" entry describes: {"type": "beam" | "pod" | "fem" |
/// "sampled", the generator's parameters..., "damping": {"ratio": z or [z...]} or
/// {"rayleigh": [alpha, beta]}}. pod, fem and sampled may take their arrays from a JSON file
/// ("file": path relative to `base_dir`) holding the same keys. Throws InputError naming the
/// key path for bad input, and the generator's own complaints prefixed by the entry's path.
ModalBasis modal_basis_from_json(const JsonNode& node, const std::string& base_dir);

}  // namespace concord
