//! The `blockmerge` target (see `targets.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kildall_fuzz::run("blockmerge", data);
});
