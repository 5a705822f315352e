//! Builds a small program with the builder, prints its text form and digests,
//! encodes it, and decodes the tree of one procedure on its own.
//!
//! Run with `cargo run -p kildall-mast --example roundtrip`.

use kildall_mast::{
    decode, decode_root, encode, DecodeOptions, Decorator, Felt, MastForestBuilder, Operation,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut b = MastForestBuilder::new();
    // A procedure `double`, and `main`, which calls it in a loop.
    let ctx = b.intern("lib::double");
    let op = b.intern("mul.2");
    let asm = Decorator::AsmOp(kildall_mast::AsmOp {
        location: None,
        context_name: ctx,
        op,
        num_cycles: 2,
        should_break: false,
    });
    let double = b.add_block(
        vec![
            Operation::Push(Felt::new(2).ok_or("2 is a field element")?),
            Operation::Mul,
        ],
        vec![(0, asm)],
    )?;
    b.add_root(double)?;
    let call = b.add_call(double, false)?;
    let check = b.add_block(
        vec![Operation::Dup0, Operation::Eqz, Operation::Not],
        vec![],
    )?;
    let body = b.add_join(call, check)?;
    let lp = b.add_loop(body)?;
    b.set_entrypoint(lp)?;
    let forest = b.build();

    print!("{forest}");
    for root in forest.roots() {
        println!("# root {root}: {}", forest.digest(root));
    }
    let bytes = encode(&forest)?;
    println!("# {} bytes encoded", bytes.len());
    assert_eq!(decode(&bytes, DecodeOptions::VERIFY)?, forest);

    let main = decode_root(&bytes, &forest.digest(lp), DecodeOptions::VERIFY)?;
    println!("# the tree of main alone, `double` left external:");
    print!("{main}");
    Ok(())
}
