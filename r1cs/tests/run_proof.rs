//! Proofs of whole runs: honest ones verify from the program alone, before
//! and after merging; every forgery is refused with the check it fails.
//! One run is proven per program and configuration, and its forgeries share
//! it and one verifier (keys set up once).
#![cfg(feature = "prove")]

use ark_bn254::Fr;
use kildall_blockmerge::{BlockMerge, Options};
use kildall_interpreter::{InterpreterOptions, RuntimeValue};
use kildall_ir::pass::run_module;
use kildall_ir::{EntityRef, Module};
use kildall_r1cs::prove::{block_keys, prove, prove_trace, rng};
use kildall_r1cs::run::{DecodeError, RunProof};
use kildall_r1cs::trace::{record, Trace};
use kildall_r1cs::verify::{Verifier, VerifyError};
use kildall_r1cs::Source;

fn program(name: &str) -> (Module, Vec<RuntimeValue>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/blockmerge")
        .join(format!("{name}.ssa"));
    kildall_harness::testing::program_with_args(&path)
}

fn merged(module: &Module) -> Module {
    let mut after = module.clone();
    run_module::<BlockMerge>(&mut after, &Options::default()).unwrap();
    after
}

/// A proven run and what forging it needs: the trace's assignments.
struct Proven {
    trace: Trace,
    proof: RunProof,
}

fn proven(module: &Module, args: Vec<RuntimeValue>) -> Proven {
    let main = module.main().unwrap();
    let trace = record(module, main, args, &InterpreterOptions::default()).unwrap();
    let report = prove_trace(&trace).unwrap();
    assert!(report.all_verified());
    Proven {
        trace,
        proof: report.run,
    }
}

impl Proven {
    /// Instance `i`'s proof again, with its assignment's position set to
    /// `position`: what a prover holding the keys can make of an honest
    /// instance anywhere in a forged run.
    fn reproved(&self, i: usize, position: usize) -> kildall_r1cs::run::InstanceProof {
        self.reproved_with(i, |public, cs| {
            public[cs.interface.position as usize] = Fr::from(position as u64);
        })
    }

    /// Instance `i`'s proof again, its public inputs changed by `change`
    /// (which must keep its constraints satisfied).
    fn reproved_with(
        &self,
        i: usize,
        change: impl FnOnce(&mut Vec<Fr>, &kildall_r1cs::ConstraintSystem),
    ) -> kildall_r1cs::run::InstanceProof {
        let instance = &self.trace.instances[i];
        let cs = &self.trace.kinds[&instance.kind];
        let keys = block_keys(&self.trace.program, instance.kind, cs).unwrap();
        let mut assignment = instance.assignment.clone();
        change(&mut assignment.public, cs);
        let mut out = self.proof.instances[i].clone();
        out.proof = prove(&keys, cs, &assignment, &mut rng()).unwrap();
        out.public = assignment.public;
        out
    }
}

fn refused(verifier: &mut Verifier<'_>, proof: &RunProof) -> VerifyError {
    match verifier.verify(proof, None) {
        Ok(v) => panic!("a forged proof verified: {v:?}"),
        Err(e) => e,
    }
}

/// Every forgery of one proven run of `module`.
fn forgeries(module: &Module, honest: &Proven, other: &Proven) {
    let mut verifier = Verifier::new(module).unwrap();
    let verified = verifier.verify(&honest.proof, None).unwrap();
    assert_eq!(verified.instances, honest.proof.instances.len());
    let n = honest.proof.instances.len();

    // The claimed result changed.
    let mut forged = honest.proof.clone();
    forged.result[0] += Fr::from(1u64);
    assert!(matches!(
        refused(&mut verifier, &forged),
        VerifyError::Result { .. }
    ));

    // Another run of the same program, presented for these arguments.
    let e = verifier
        .verify(&other.proof, Some(&honest.proof.args))
        .unwrap_err();
    assert!(matches!(e, VerifyError::Arguments { .. }), "{e}");
    let mut forged = other.proof.clone();
    forged.args = honest.proof.args.clone();
    forged.result = honest.proof.result.clone();
    let e = refused(&mut verifier, &forged);
    assert!(matches!(&e, VerifyError::Input { instance: 0, .. }), "{e}");

    // An output changed (each instance's first output, the result's
    // with it): the instance's proof no longer holds.
    for (i, instance) in honest.trace.instances.iter().enumerate().step_by(3) {
        let cs = &honest.trace.kinds[&instance.kind];
        let Some(Source::Public(at)) = cs.interface.outputs.iter().find_map(|(_, s)| s.first())
        else {
            continue;
        };
        let mut forged = honest.proof.clone();
        forged.instances[i].public[*at as usize] += Fr::from(1u64);
        if i + 1 == n {
            forged.result = honest
                .proof
                .result
                .iter()
                .map(|r| *r + Fr::from(1u64))
                .collect();
        }
        // A branch condition changed to 2 is refused before its proof.
        let e = refused(&mut verifier, &forged);
        assert!(
            matches!(e, VerifyError::Proof { instance, .. }
                | VerifyError::NotBoolean { instance, .. } if instance == i),
            "{e}"
        );
    }

    if n >= 2 {
        // An instance dropped: the run's positions, then (re-proven at
        // their new places) its links, refuse it.
        let mut forged = honest.proof.clone();
        forged.instances.remove(n - 2);
        let e = refused(&mut verifier, &forged);
        assert!(matches!(e, VerifyError::Position { .. }), "{e}");
        forged.instances[n - 2] = honest.reproved(n - 1, n - 2);
        let e = refused(&mut verifier, &forged);
        assert!(
            matches!(e, VerifyError::Successor { .. } | VerifyError::Input { .. }),
            "{e}"
        );

        // An instance duplicated.
        let mut forged = honest.proof.clone();
        forged
            .instances
            .insert(n - 1, honest.proof.instances[n - 2].clone());
        let e = refused(&mut verifier, &forged);
        assert!(matches!(e, VerifyError::Position { .. }), "{e}");
        forged.instances[n - 1] = honest.reproved(n - 2, n - 1);
        forged.instances[n] = honest.reproved(n - 1, n);
        let e = refused(&mut verifier, &forged);
        assert!(
            matches!(e, VerifyError::Successor { .. } | VerifyError::Input { .. }),
            "{e}"
        );

        // Two instances swapped.
        let mut forged = honest.proof.clone();
        forged.instances.swap(n - 2, n - 1);
        let e = refused(&mut verifier, &forged);
        assert!(matches!(e, VerifyError::Position { .. }), "{e}");
        forged.instances[n - 2] = honest.reproved(n - 1, n - 2);
        forged.instances[n - 1] = honest.reproved(n - 2, n - 1);
        let e = refused(&mut verifier, &forged);
        assert!(
            matches!(e, VerifyError::Successor { .. } | VerifyError::Input { .. }),
            "{e}"
        );
    }

    // A different program.
    let (different, _) = ["rle", "find_min"]
        .map(program)
        .into_iter()
        .find(|(m, _)| m.to_string() != module.to_string())
        .unwrap();
    let mut verifier_of_other = Verifier::new(&different).unwrap();
    let e = refused(&mut verifier_of_other, &honest.proof);
    assert!(matches!(e, VerifyError::OtherProgram { .. }), "{e}");

    memory_forgeries(&mut verifier, honest);
    file_forgeries(&mut verifier, honest);
}

/// Accesses changed in the memory check but not in the blocks, and in the
/// blocks but not in the check.
fn memory_forgeries(verifier: &mut Verifier<'_>, honest: &Proven) {
    let Some(memory) = &honest.proof.memory else {
        // No memory: an added entry is refused all the same.
        let mut forged = honest.proof.clone();
        forged.memory = Some(kildall_r1cs::run::MemoryCheckProof::default());
        forged
            .memory
            .as_mut()
            .unwrap()
            .entries
            .push(kildall_r1cs::memory::Entry {
                valid: true,
                key: 1,
                value: Fr::from(0u64),
                kind: kildall_r1cs::memory::EntryKind::Allocate,
            });
        let e = refused(verifier, &forged);
        assert!(matches!(e, VerifyError::MemoryList(_)), "{e}");
        return;
    };
    let last = memory.entries.len() - 1;
    // Changed.
    let mut forged = honest.proof.clone();
    forged.memory.as_mut().unwrap().entries[last].value += Fr::from(1u64);
    let e = refused(verifier, &forged);
    assert!(matches!(e, VerifyError::MemoryList(_)), "{e}");
    // Dropped.
    let mut forged = honest.proof.clone();
    forged.memory.as_mut().unwrap().entries.pop();
    let e = refused(verifier, &forged);
    assert!(matches!(e, VerifyError::MemoryList(_)), "{e}");
    // Added.
    let mut forged = honest.proof.clone();
    let copy = memory.entries[last].clone();
    forged.memory.as_mut().unwrap().entries.push(copy);
    let e = refused(verifier, &forged);
    assert!(matches!(e, VerifyError::MemoryList(_)), "{e}");
    // In a block but not in the check: the access's value, a public input
    // of its instance, changed; the block's proof refuses it.
    let (i, at) = honest
        .trace
        .instances
        .iter()
        .enumerate()
        .find_map(|(i, instance)| {
            let cs = &honest.trace.kinds[&instance.kind];
            cs.interface
                .accesses
                .iter()
                .find_map(|[_, _, value]| match value {
                    Source::Public(n) => Some((i, *n as usize)),
                    Source::Constant(_) => None,
                })
        })
        .expect("an access with a public value");
    let mut forged = honest.proof.clone();
    forged.instances[i].public[at] += Fr::from(1u64);
    let e = refused(verifier, &forged);
    assert!(
        matches!(e, VerifyError::Proof { .. } | VerifyError::Input { .. }),
        "{e}"
    );
}

/// Truncated and bit-flipped files.
fn file_forgeries(verifier: &mut Verifier<'_>, honest: &Proven) {
    let bytes = honest.proof.encode();
    assert_eq!(RunProof::decode(&bytes).unwrap(), honest.proof);
    // Cut in every field of the header, then at lengths spread over the
    // rest, and in the last field (decoding a long prefix checks every
    // point of it, so the cuts are few).
    let spread = (bytes.len() / 24).max(1);
    let cuts = (0..120)
        .chain((120..bytes.len()).step_by(spread))
        .chain(bytes.len().saturating_sub(2)..bytes.len());
    for len in cuts.filter(|&len| len < bytes.len()) {
        assert!(
            RunProof::decode(&bytes[..len]).is_err(),
            "truncated to {len}"
        );
    }
    // A flip in the header, a proof, a public input, the memory list.
    let step = (bytes.len() / 11).max(1);
    for at in (0..bytes.len()).step_by(step) {
        let mut flipped = bytes.clone();
        flipped[at] ^= 1 << (at % 8);
        match RunProof::decode(&flipped) {
            Err(_) => {}
            Ok(forged) => {
                let e = verifier.verify(&forged, None);
                assert!(e.is_err(), "a flip of bit {} of byte {at} verified", at % 8);
            }
        }
    }
}

fn check_program(name: &str, other_args: &str) {
    let (module, args) = program(name);
    let other_args = RuntimeValue::parse_list(other_args).unwrap();
    for module in [module.clone(), merged(&module)] {
        let honest = proven(&module, args.clone());
        let other = proven(&module, other_args.clone());
        forgeries(&module, &honest, &other);
    }
}

#[test]
fn find_min_forgeries_are_refused() {
    check_program(
        "find_min",
        "[u32 2, u32 3, u32 9, u32 1, u32 7, u32 8, u32 2, u32 0]",
    );
}

#[test]
fn decode_errors_name_the_byte() {
    assert_eq!(RunProof::decode(b"KR1CSRU"), Err(DecodeError::Magic));
    let mut bytes = RunProof::default().encode();
    assert!(RunProof::decode(&bytes).is_ok());
    bytes[8] = 2;
    assert_eq!(RunProof::decode(&bytes), Err(DecodeError::Version(2)));
}

#[test]
fn rle_forgeries_are_refused() {
    check_program(
        "rle",
        "[u32 4, u32 1, u32 4, u32 7, u32 7, u32 1, u32 4, u32 5]",
    );
}

/// Calls (a loop in `main` calling a function with a branch), cells shared
/// across them: the links of calls and returns and the memory check's
/// order across calls.
#[test]
fn calls_and_cells_forgeries_are_refused() {
    let module = kildall_ir::parse_module(
        "
fn main f0 {
  b0(v0: Field, v1: u32):
    v2 = allocate -> &mut Field
    store v0 at v2
    jmp b1(u32 0, Field 0)
  b1(v3: u32, v4: Field):
    v5 = lt v3, v1
    jmpif v5 then: b2, else: b3
  b2():
    v6 = call f1(v2, v3) -> Field
    v7 = load v2 -> Field
    v8 = add v4, v6
    v9 = add v8, v7
    v10 = add v3, u32 1
    jmp b1(v10, v9)
  b3():
    return v4
}
fn bump f1 {
  b0(v0: &mut Field, v1: u32):
    v2 = load v0 -> Field
    v3 = lt v1, u32 1
    jmpif v3 then: b1, else: b2
  b1():
    v4 = mul v2, v2
    store v4 at v0
    jmp b3(v4)
  b2():
    v5 = add v2, Field 1
    store v5 at v0
    jmp b3(v2)
  b3(v6: Field):
    return v6
}",
    )
    .unwrap();
    let args = RuntimeValue::parse_list("Field 3, u32 2").unwrap();
    let other = RuntimeValue::parse_list("Field 4, u32 2").unwrap();
    for module in [module.clone(), merged(&module)] {
        let honest = proven(&module, args.clone());
        let other = proven(&module, other.clone());
        forgeries(&module, &honest, &other);
        // The caller takes another result of the call (and passes on the
        // sum it makes): its proof holds, the callee's return refuses it.
        let mut verifier = Verifier::new(&module).unwrap();
        let main = module.main().unwrap();
        let calling = honest
            .trace
            .instances
            .iter()
            .position(|i| {
                let func = &module.functions[i.kind.0];
                i.kind.0 == main && func.layout.block_insts(i.kind.1).count() > 3
            })
            .unwrap();
        let mut forged = honest.proof.clone();
        forged.instances[calling] = honest.reproved_with(calling, |public, cs| {
            let func = &module.functions[main];
            let (_, result) = cs
                .interface
                .inputs
                .iter()
                .find(|(v, _)| match func.dfg.value_def(*v) {
                    kildall_ir::ValueDef::Result(inst, _) => {
                        matches!(func.dfg[inst], kildall_ir::InstructionData::Call { .. })
                    }
                    _ => false,
                })
                .unwrap();
            public[result[0] as usize] += Fr::from(1u64);
            let (_, jump) = cs
                .interface
                .outputs
                .iter()
                .find(|(o, _)| *o == kildall_r1cs::Output::Jump(kildall_ir::EdgeSlot::Jump))
                .unwrap();
            let Source::Public(sum) = jump[1] else {
                panic!("a public sum")
            };
            public[sum as usize] += Fr::from(1u64);
        });
        let e = refused(&mut verifier, &forged);
        assert!(matches!(e, VerifyError::Return { .. }), "{e}");
    }
}

/// A `jmpif` whose two edges enter one block with different arguments,
/// and one passing arguments to two blocks: the next instance's parameters
/// are linked to the arguments of the edge the branch takes.
#[test]
fn jmpif_arguments_are_linked_per_edge() {
    let module = kildall_ir::parse_module(
        "
fn main f0 {
  b0(v0: u1, v1: Field):
    v2 = mul v1, Field 2
    jmpif v0 then: b1(Field 1, v1), else: b1(Field 2, v2)
  b1(v3: Field, v4: Field):
    v5 = add v3, v4
    v6 = eq v3, Field 1
    jmpif v6 then: b2(v5), else: b3(v4, v5)
  b2(v7: Field):
    return v7
  b3(v8: Field, v9: Field):
    v10 = mul v8, v9
    return v10
}",
    )
    .unwrap();
    let then_run = RuntimeValue::parse_list("u1 1, Field 5").unwrap();
    let else_run = RuntimeValue::parse_list("u1 0, Field 5").unwrap();
    for module in [module.clone(), merged(&module)] {
        let honest = proven(&module, else_run.clone());
        let other = proven(&module, then_run.clone());
        forgeries(&module, &honest, &other);
        forgeries(&module, &other, &honest);
    }
}

/// A global read in a block is an input of its instance, checked against
/// the module's value.
#[test]
fn globals_are_checked_against_the_module() {
    let text = |g0: u32| {
        format!(
            "
g0 = Field {g0}
g1 = make_array [g0, Field 2] : [Field; 2]

fn main f0 {{
  b0(v0: Field, v1: u32):
    jmp b1(v0, u32 0)
  b1(v2: Field, v3: u32):
    v4 = lt v3, v1
    jmpif v4 then: b2, else: b3
  b2():
    v5 = add v2, g0
    v6 = array_get g1, index u32 1 -> Field
    v7 = add v5, v6
    v8 = add v3, u32 1
    jmp b1(v7, v8)
  b3():
    return v2
}}"
        )
    };
    let module = kildall_ir::parse_module(&text(5)).unwrap();
    // The same program with another value of `g0`: its runs give the
    // assignments of a prover who takes `g0` to be 6.
    let lying = kildall_ir::parse_module(&text(6)).unwrap();
    let args = RuntimeValue::parse_list("Field 3, u32 2").unwrap();
    for (module, lying) in [
        (module.clone(), lying.clone()),
        (merged(&module), merged(&lying)),
    ] {
        let honest = proven(&module, args.clone());
        assert_eq!(honest.proof.result, vec![Fr::from(17u64)]);
        let mut verifier = Verifier::new(&module).unwrap();
        verifier.verify(&honest.proof, None).unwrap();
        let main = module.main().unwrap();
        let dfg = &module.functions[main].dfg;
        let reads_g0 = |cs: &kildall_r1cs::ConstraintSystem| {
            cs.interface.inputs.iter().any(|(v, _)| {
                matches!(dfg.value_def(*v), kildall_ir::ValueDef::Global(g) if g.index() == 0)
            })
        };
        let i = (0..honest.trace.instances.len())
            .find(|&i| reads_g0(&honest.trace.kinds[&honest.trace.instances[i].kind]))
            .expect("an instance reads g0");
        // Instance `i` proven with the program's keys on the lying run's
        // assignment: the proof holds, the global does not.
        let other = record(&lying, main, args.clone(), &InterpreterOptions::default()).unwrap();
        let instance = &honest.trace.instances[i];
        let cs = &honest.trace.kinds[&instance.kind];
        let keys = block_keys(&honest.trace.program, instance.kind, cs).unwrap();
        let assignment = &other.instances[i].assignment;
        let mut forged = honest.proof.clone();
        forged.instances[i].proof = prove(&keys, cs, assignment, &mut rng()).unwrap();
        forged.instances[i].public = assignment.public.clone();
        let e = refused(&mut verifier, &forged);
        assert!(matches!(e, VerifyError::Input { .. }), "{e}");
        assert!(e.to_string().contains("the module's global"), "{e}");
    }
}

/// The results of a builtin call are inputs of their instance, which the
/// verifier computes from the arguments the instance passes the call.
#[test]
fn builtin_results_are_computed_from_their_arguments() {
    let module = kildall_ir::parse_module(
        "
fn main f0 {
  b0(v0: Field, v1: u32):
    jmp b1(v0, u32 0)
  b1(v2: Field, v3: u32):
    v4 = lt v3, v1
    jmpif v4 then: b2, else: b3
  b2():
    v5 = call to_le_radix(v2, u32 256) -> [u8; 4]
    v6 = array_get v5, index u32 0 -> u8
    v7 = cast v6 as Field
    v8 = add v2, v7
    v9 = make_array [v8, v2, v2, v2] : [Field; 4]
    v10 = call poseidon2_permutation(v9, u32 4) -> [Field; 4]
    v11 = array_get v10, index u32 0 -> Field
    v12 = add v3, u32 1
    jmp b1(v8, v12)
  b3():
    return v2
}",
    )
    .unwrap();
    let args = RuntimeValue::parse_list("Field 300, u32 2").unwrap();
    for module in [module.clone(), merged(&module)] {
        let honest = proven(&module, args.clone());
        let mut verifier = Verifier::new(&module).unwrap();
        verifier.verify(&honest.proof, None).unwrap();
        // A result changed: the instance that reads it, re-proven with it
        // (the proof holds; the builtin says otherwise).
        let main = module.main().unwrap();
        let dfg = &module.functions[main].dfg;
        let is_builtin_result = |v: &kildall_ir::Value| {
            matches!(dfg.value_def(*v), kildall_ir::ValueDef::Result(inst, _)
                if matches!(&dfg[inst], kildall_ir::InstructionData::Call { callee: kildall_ir::Callee::Builtin(_), .. }))
        };
        let i = (0..honest.trace.instances.len())
            .find(|&i| {
                let cs = &honest.trace.kinds[&honest.trace.instances[i].kind];
                cs.interface
                    .inputs
                    .iter()
                    .any(|(v, _)| is_builtin_result(v))
            })
            .expect("an instance calls a builtin");
        let mut forged = honest.proof.clone();
        forged.instances[i] = honest.reproved_with(i, |public, cs| {
            // The last element of the Poseidon2 permutation's result,
            // which nothing else in the block reads.
            let (_, publics) = cs
                .interface
                .inputs
                .iter()
                .rfind(|(v, _)| is_builtin_result(v))
                .unwrap();
            public[*publics.last().unwrap() as usize] += Fr::from(1u64);
        });
        let e = refused(&mut verifier, &forged);
        assert!(matches!(e, VerifyError::Input { .. }), "{e}");
        assert!(
            e.to_string().contains("the builtin on its arguments"),
            "{e}"
        );
    }
}

/// A matrix-vector product on a `[[Field; 2]; 3]` in an `acir` function:
/// rows read whole at a run-time entry index, a leaf read at a run-time
/// flat index, a row written back at a run-time index, the matrix through
/// a block parameter. Proven and verified, before and after merging, and
/// every forgery refused.
#[test]
fn matrix_forgeries_are_refused() {
    let module = kildall_ir::parse_module(MATRIX).unwrap();
    kildall_ir::verify_module(&module).unwrap();
    let args = RuntimeValue::parse_list(
        "[[Field 1, Field 2], [Field 3, Field 4], [Field 5, Field 6]], [Field 7, Field 8]",
    )
    .unwrap();
    let other = RuntimeValue::parse_list(
        "[[Field 2, Field 0], [Field 0, Field 2], [Field 1, Field 1]], [Field 7, Field 8]",
    )
    .unwrap();
    for module in [module.clone(), merged(&module)] {
        let honest = proven(&module, args.clone());
        let expected = [23u64, 53, 83, 7, 16, 21, 32, 35, 48];
        assert_eq!(honest.trace.result, expected.map(Fr::from));
        let other = proven(&module, other.clone());
        forgeries(&module, &honest, &other);
    }
}

/// `main(m, x)` returns `m x` and `m` with each entry scaled by its column's
/// element of `x`.
const MATRIX: &str = "
acir(inline) fn main f0 {
  b0(v0: [[Field; 2]; 3], v1: [Field; 2]):
    v2 = make_array [Field 0, Field 0, Field 0] : [Field; 3]
    jmp b1(u32 0, v2, v0)
  b1(v3: u32, v4: [Field; 3], v5: [[Field; 2]; 3]):
    v6 = lt v3, u32 3
    jmpif v6 then: b2, else: b3
  b2():
    v7 = array_get v0, index v3 -> [Field; 2]
    v8 = array_get v7, index u32 0 -> Field
    v9 = array_get v7, index u32 1 -> Field
    v10 = array_get v1, index u32 0 -> Field
    v11 = array_get v1, index u32 1 -> Field
    v12 = mul v8, v10
    v13 = mul v9, v11
    v14 = add v12, v13
    v15 = array_set v4, index v3, value v14
    v16 = make_array [v12, v13] : [Field; 2]
    v17 = array_set v5, index v3, value v16
    v18 = unchecked_mul v3, u32 2
    v19 = unchecked_add v18, u32 1
    v20 = array_get v0, index v19 -> Field
    constrain v20 == v9
    v21 = add v3, u32 1
    jmp b1(v21, v15, v17)
  b3():
    return v4, v5
}";
