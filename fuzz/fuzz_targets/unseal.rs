//! Arbitrary bytes against the requestState unseal path: as a token string, as a JSON value,
//! and as edits of a real token. Every refusal must be the one frozen error; nothing may panic.
//!
//! `cargo install cargo-fuzz; cd fuzz && cargo fuzz run -s none unseal -- -max_total_time=60`

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    roundtrip::seal::__fuzz_unseal(data);
});
