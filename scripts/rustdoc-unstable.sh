#!/bin/sh
# rustdoc with its unstable options allowed: what scripts/api-json.sh sets as RUSTDOC to have
# the stable toolchain write rustdoc's JSON. RUSTC_BOOTSTRAP=1 is set for rustdoc alone: set
# for cargo, it would reach rustc and the dependencies' build scripts too, which probe for it
# (proc-macro2, serde…), so every dependency would build again, apart from the other builds.
RUSTC_BOOTSTRAP=1 exec rustdoc "$@"
