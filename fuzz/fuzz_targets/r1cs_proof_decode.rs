//! The `r1cs-proof-decode` target (see the crate root).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kildall_fuzz::run("r1cs-proof-decode", data);
});
