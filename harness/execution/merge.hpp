// `memrel merge`: the results of the shards of one run (`memrel run --shard K/N`,
// harness/execution/shard.hpp) joined into the document the unsharded run would have written: the
// same cells in the same order (docs/slurm.md).
//
// Merging refuses, with a ResultsError that names the file, anything that would make the joined
// document lie: a file that is not a shard, shards of another matrix, rule, memrel build, run
// options or GPU model than the first file's, a shard given twice (overlap), a cell outside its
// shard, a shard that lacks one of its cells, and shards missing from the files given (gap).
#pragma once

#include <string>
#include <vector>

#include "harness/results/results.hpp"

namespace memrel {

// Reads every file (each a memrel.results/1 document with a context.shard record) and joins
// them. The context is the first shard's (1/N) without its "shard" record, with "started" the
// earliest and "finished" the latest of the shards, and "merged_from": one entry per shard, in
// shard order: {"shard": "K/N", "file", "host", "started", "finished", "cells", "gpus"}, so
// that every shard's machine and GPUs (NVML's names and UUIDs) stay on record.
RunResults merge_shard_files(const std::vector<std::string>& paths);

}  // namespace memrel
