//! Text format and verifier throughput: parse, verify and print a generated
//! function of 1,000,000 instructions (blocks of 1,000 instructions chained
//! by jumps with parameters, a diamond every tenth block), verified on every
//! thread and on one.

use criterion::{criterion_group, criterion_main, Criterion};
use kildall_ir::{parse_module, verify_module, verify_module_on};
use std::fmt::Write as _;

/// A function of at least `insts` instructions in the text format.
fn generate(insts: usize) -> String {
    const BLOCK: usize = 1000;
    let mut out = String::with_capacity(insts * 40);
    let mut v = 2u32;
    out.push_str("acir(inline) fn main f0 {\n  b0(v0: u32, v1: Field):\n    jmp b1(v0, v1)\n");
    let mut b = 1u32;
    let mut total = 0;
    for k in 0.. {
        let (x, y) = (v, v + 1);
        v += 2;
        writeln!(out, "  b{b}(v{x}: u32, v{y}: Field):").unwrap();
        let cell = v;
        writeln!(out, "    v{cell} = allocate -> &mut Field").unwrap();
        v += 1;
        let (mut a, mut f) = (x, y);
        let mut count = 1;
        while count + 8 <= BLOCK {
            let n = v;
            writeln!(out, "    v{} = unchecked_add v{a}, u32 1", n).unwrap();
            writeln!(out, "    v{} = mul v{f}, Field 3", n + 1).unwrap();
            writeln!(out, "    v{} = cast v{} as Field", n + 2, n).unwrap();
            writeln!(out, "    v{} = add v{}, v{}", n + 3, n + 1, n + 2).unwrap();
            writeln!(
                out,
                "    v{} = make_array [v{}, v{f}] : [Field; 2]",
                n + 4,
                n + 3
            )
            .unwrap();
            writeln!(
                out,
                "    v{} = array_get v{}, index u32 1 -> Field",
                n + 5,
                n + 4
            )
            .unwrap();
            writeln!(out, "    store v{} at v{cell}", n + 5).unwrap();
            writeln!(out, "    v{} = load v{cell} -> Field", n + 6).unwrap();
            a = n;
            f = n + 6;
            v += 7;
            count += 8;
        }
        total += count;
        let next = b + if k % 10 == 0 { 3 } else { 1 };
        if total >= insts {
            writeln!(out, "    return v{a}, v{f}").unwrap();
            break;
        } else if k % 10 == 0 {
            // A diamond: b+1 and b+2 both jump to b+3.
            writeln!(out, "    v{v} = lt v{a}, u32 100").unwrap();
            writeln!(out, "    jmpif v{v} then: b{}, else: b{}", b + 1, b + 2).unwrap();
            v += 1;
            for side in 1..=2 {
                writeln!(out, "  b{}():\n    jmp b{next}(v{a}, v{f})", b + side).unwrap();
            }
        } else {
            writeln!(out, "    jmp b{next}(v{a}, v{f})").unwrap();
        }
        b = next;
    }
    out.push_str("}\n");
    out
}

fn bench(c: &mut Criterion) {
    let text = generate(1_000_000);
    let module = parse_module(&text).expect("the generated text parses");
    verify_module(&module).expect("the generated function verifies");
    let insts = module
        .functions
        .values()
        .map(|f| f.num_insts())
        .sum::<usize>();
    assert!(insts >= 1_000_000, "{insts} instructions");
    let mut group = c.benchmark_group("ir_text_1m");
    group.sample_size(10);
    group.bench_function("parse", |b| b.iter(|| parse_module(&text).unwrap()));
    group.bench_function("verify", |b| b.iter(|| verify_module(&module).unwrap()));
    // The walk of one large function on one thread, against its ranges on
    // every thread above.
    group.bench_function("verify_1_thread", |b| {
        b.iter(|| verify_module_on(&module, 1).unwrap())
    });
    group.bench_function("parse_verify", |b| {
        b.iter(|| {
            let module = parse_module(&text).unwrap();
            verify_module(&module).unwrap();
            module
        })
    });
    group.bench_function("print", |b| b.iter(|| module.to_string()));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
