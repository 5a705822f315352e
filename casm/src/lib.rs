//! JuvixReg to Cairo assembly: SSA lowering, per-block liveness, an assembler to Cairo bytecode and a strict CASM interpreter.
#![deny(missing_docs)]
