//! The state of the function being parsed: its constants and globals,
//! materialised after every numbered value, the values named other than
//! `vN`, and the result types that wait for an operand defined later.

use std::collections::{HashMap, HashSet};

use super::{ParseError, ParseErrorKind, CONST_TAG};
use crate::{
    Block, ConstValue, FuncId, Function, GlobalId, Inst, SourceLoc, Type, Value, ValueDef,
};

/// A value the parser creates once per function, whatever the text's numbering.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Materialised {
    Const(ConstValue),
    Global(GlobalId),
    /// `fN`, by the number the text gives it (resolved once the module is read).
    Function(u32),
}

/// Per-function state.
pub(super) struct FuncState {
    pub(super) func: Function,
    /// Constants and globals named by operands, materialised (after every
    /// numbered value) when the function is finished.
    pub(super) consts: Vec<(Type, Materialised)>,
    pub(super) const_ids: HashMap<(Type, Materialised), u32>,
    /// Results whose type is that of an operand not yet known: (result, operand).
    pub(super) pending: Vec<(Value, Value)>,
    pub(super) pending_set: HashSet<Value>,
    pub(super) results: Vec<Value>,
    /// Values named other than `vN` (`v1_arr`), numbered after the largest
    /// `vN` of the function: the name, to the value and where it first appears.
    pub(super) names: HashMap<String, (Value, SourceLoc)>,
    pub(super) next_named: u32,
    /// Blocks named other than `bN` (`entry`), numbered after the largest
    /// `bN` of the function: the name, to the block and where it first
    /// appears.
    pub(super) block_names: HashMap<String, (Block, SourceLoc)>,
    pub(super) next_named_block: u32,
    /// The functions used as values, `fN` by the text's number, where each
    /// use is.
    pub(super) function_refs: Vec<(u32, SourceLoc)>,
    /// The Brillig offset of the index of the instruction being parsed
    /// (`index u32 4 minus 3`), 0 when it has none.
    pub(super) offset: u32,
}

impl FuncState {
    /// The operand naming constant `value` of type `ty`.
    pub(super) fn constant(&mut self, ty: Type, value: ConstValue) -> Value {
        self.materialised(ty, Materialised::Const(value))
    }

    /// The operand naming a constant or a global of type `ty` (one value per
    /// distinct one, materialised when the function is finished).
    pub(super) fn materialised(&mut self, ty: Type, value: Materialised) -> Value {
        let next = self.consts.len() as u32;
        let key = (ty, value);
        let index = match self.const_ids.get(&key) {
            Some(&index) => index,
            None => {
                self.consts.push(key.clone());
                self.const_ids.insert(key, next);
                next
            }
        };
        Value::from_u32(CONST_TAG | index)
    }

    /// The constant an operand names and its type, if it names one.
    pub(super) fn constant_of(&self, value: Value) -> Option<(Type, ConstValue)> {
        let n = value.as_u32();
        if n & CONST_TAG == 0 {
            return None;
        }
        match &self.consts[(n & !CONST_TAG) as usize] {
            (ty, Materialised::Const(c)) => Some((ty.clone(), *c)),
            _ => None,
        }
    }

    /// The type of `value` if it is already known: a constant, or a defined
    /// value whose own type is not pending.
    pub(super) fn known_type(&self, value: Value) -> Option<Type> {
        let n = value.as_u32();
        if n & CONST_TAG != 0 {
            return Some(self.consts[(n & !CONST_TAG) as usize].0.clone());
        }
        let dfg = &self.func.dfg;
        let defined = dfg.value_def(value) != ValueDef::Unused;
        (defined && !self.pending_set.contains(&value)).then(|| dfg.value_type(value).clone())
    }

    /// Creates the constants and globals, rewrites the operands that named them, and
    /// resolves the pending result types.
    pub(super) fn finish(mut self) -> Result<Function, ParseError> {
        if let Some((name, &(_, loc))) = self
            .names
            .iter()
            .filter(|(_, &(value, _))| self.func.dfg.value_def(value) == ValueDef::Unused)
            .min_by_key(|(_, &(_, loc))| (loc.line, loc.col))
        {
            return Err(ParseError {
                loc,
                kind: ParseErrorKind::UndefinedName(name.clone()),
            });
        }
        if let Some((name, &(_, loc))) = self
            .block_names
            .iter()
            .filter(|(_, &(block, _))| !self.func.layout.is_block_inserted(block))
            .min_by_key(|(_, &(_, loc))| (loc.line, loc.col))
        {
            return Err(ParseError {
                loc,
                kind: ParseErrorKind::UndefinedBlock(name.clone()),
            });
        }
        let func = &mut self.func;
        if !self.consts.is_empty() {
            let values: Vec<Value> = self
                .consts
                .iter()
                .map(|(ty, m)| match *m {
                    Materialised::Const(c) => func.dfg.constant(c, ty.clone()),
                    Materialised::Global(g) => func.dfg.global(g, ty.clone()),
                    Materialised::Function(n) => func.dfg.function_ref(FuncId::from_u32(n)),
                })
                .collect();
            let map = |v: Value| {
                let n = v.as_u32();
                if n & CONST_TAG != 0 {
                    values[(n & !CONST_TAG) as usize]
                } else {
                    v
                }
            };
            for i in 0..func.dfg.num_insts() {
                func.dfg[Inst::from_u32(i as u32)].map_values(map);
            }
            for i in 0..func.dfg.num_blocks() {
                if let Some(terminator) = func.dfg.terminator_mut(Block::from_u32(i as u32)) {
                    terminator.map_values(map);
                }
            }
            for pending in &mut self.pending {
                pending.1 = map(pending.1);
            }
            func.databus.map_values(map);
        }
        self.resolve_pending();
        Ok(self.func)
    }

    /// Gives each pending result the type of its source operand, following
    /// chains of pending results once each (linear); a cycle, which only
    /// invalid programs have, keeps the placeholder type.
    fn resolve_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let source_of: HashMap<Value, usize> = self
            .pending
            .iter()
            .enumerate()
            .map(|(i, &(result, _))| (result, i))
            .collect();
        // 0: unresolved, 1: on the current chain, 2: resolved.
        let mut state = vec![0u8; self.pending.len()];
        let mut chain = Vec::new();
        for start in 0..self.pending.len() {
            if state[start] != 0 {
                continue;
            }
            chain.clear();
            let mut current = start;
            let ty = loop {
                state[current] = 1;
                chain.push(current);
                let source = self.pending[current].1;
                match source_of.get(&source) {
                    Some(&next) if state[next] == 0 => current = next,
                    Some(&next) if state[next] == 1 => break Type::Field,
                    _ => break self.func.dfg.value_type(source).clone(),
                }
            };
            for &i in &chain {
                state[i] = 2;
                let result = self.pending[i].0;
                if let ValueDef::Result(inst, _) = self.func.dfg.value_def(result) {
                    // Re-attaching is the one way to retype a result.
                    self.func.dfg.detach_results(inst);
                    self.func.dfg.attach_result(inst, result, ty.clone());
                }
            }
        }
    }
}
