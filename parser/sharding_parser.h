// Checking the syntax of shardings, device meshes and mesh replica groups.
//
// These values are carried verbatim (nothing here interprets them), but a
// malformed one must be rejected where XLA's parser rejects it, with the
// position of the offending part.
#pragma once

#include "parser/cursor.h"

namespace hlo {

// Reads a `sharding=` value at the cursor: a classic sharding
// (`{replicated}`, `{maximal device=0}`, `{devices=[2,2]0,1,2,3}`,
// `{devices=[2,2]<=[4]}`, `last_tile_dim_replicate`, ...), a named one
// (`{mesh['x'=2] [{'x'}]}`), or a tuple of these (`{{replicated}, {manual}}`).
Status checkSharding(Cursor& c);

// Reads a mesh replica-group list at the cursor: `mesh['x'=2,'y'=2] {'x'}`
// or `maximal_mesh[device_id=0] {}`.
Status checkMeshReplicaGroups(Cursor& c);

// Reads an iota replica-group list at the cursor: `[2,2]<=[4]` or
// `[2,4]<=[2,4]T(1,0)`: two group dimensions whose product is the device count.
Status checkIotaReplicaGroups(Cursor& c);

}  // namespace hlo
