//! Groth16 proofs of a tiny trace verify, and a proof does not verify
//! against changed public inputs.
#![cfg(feature = "prove")]

use kildall_interpreter::{InterpreterOptions, RuntimeValue};
use kildall_r1cs::prove::{prove, prove_trace, rng, setup, verify};
use kildall_r1cs::trace::record;

#[test]
fn a_tiny_trace_proves_and_verifies() {
    let module = kildall_ir::parse_module(
        "
fn main f0 {
  b0(v0: u8, v1: Field):
    jmp b1(u8 0, v1)
  b1(v2: u8, v3: Field):
    v4 = lt v2, v0
    jmpif v4 then: b2, else: b3
  b2():
    v5 = mul v3, v3
    v6 = add v2, u8 1
    jmp b1(v6, v5)
  b3():
    return v3
}",
    )
    .unwrap();
    let main = module.main().unwrap();
    let args = vec![RuntimeValue::unsigned(8, 2), RuntimeValue::field(3)];
    let trace = record(&module, main, args, &InterpreterOptions::default()).unwrap();
    assert_eq!(trace.instances.len(), 7);
    let report = prove_trace(&trace).unwrap();
    assert_eq!((report.kinds, report.instances, report.verified), (4, 7, 7));
    // Claim 82 instead of 81 as b3's returned value (its last public
    // input): the proof does not verify.
    let last = &trace.instances[6];
    let cs = &trace.kinds[&last.kind];
    let mut rng = rng();
    let keys = setup(cs, &mut rng).unwrap();
    let proof = prove(&keys, cs, &last.assignment, &mut rng).unwrap();
    assert!(verify(&keys, &last.assignment.public, &proof).unwrap());
    let mut claimed = last.assignment.public.clone();
    *claimed.last_mut().unwrap() += ark_bn254::Fr::from(1u64);
    assert!(!verify(&keys, &claimed, &proof).unwrap());
}

#[test]
fn a_memory_check_proves_and_verifies() {
    let module = kildall_ir::parse_module(
        "
fn main f0 {
  b0(v0: Field):
    v1 = allocate -> &mut Field
    store v0 at v1
    v2 = load v1 -> Field
    return v2
}",
    )
    .unwrap();
    let main = module.main().unwrap();
    let args = vec![RuntimeValue::field(5)];
    let trace = record(&module, main, args, &InterpreterOptions::default()).unwrap();
    let report = prove_trace(&trace).unwrap();
    let memory = report.memory.as_ref().unwrap();
    assert_eq!((memory.entries, memory.valid_entries), (3, 3));
    assert!(memory.verified && report.all_verified());
}
