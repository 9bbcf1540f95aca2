package org.mooncake.osgi.epd.api;

import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The KV connector of a process: a prefill saves the KV cache of a prompt as blocks, a decode
 * loads them instead of computing the prompt again. Blocks are keyed by the hash of the prompt
 * up to their end ({@link PrefixHashes}), as vLLM's Mooncake store connector keys them, so a
 * block is found by any request that shares the prefix. Each block is a tensor object (header
 * then payload, {@link TensorHeader}): a load checks it is the block the engine expects. Thread
 * safe; each call works on its caller's thread.
 */
@ProviderType
public interface KvCacheConnector {

    ConnectorRole role();

    /** Tokens per block; the last block of a prompt may hold fewer. */
    int blockTokens();

    /**
     * Saves blocks {@code [0, hashes.size())}: block {@code i} is {@code block.apply(i)}, stored
     * under {@code namespace.kvBlock(0, hashes.get(i))}, all in one batch. Idempotent: a block
     * already stored, or being stored elsewhere, is not written again. A block that fails is
     * counted and reported; a decode uses the blocks before the first missing one. Returns what to
     * hand to the decode in {@code kv_transfer_params}.
     */
    SaveResult save(KeyNamespace namespace, String requestId, List<byte[]> hashes, IntFunction<Tensor> block,
            String groupId);

    /**
     * Loads blocks in order into {@code targets.apply(i)} (whose shapes are what the engine
     * expects) until all are loaded or one is missing or fails its checks; returns how many
     * leading blocks arrived intact. Nothing of a block that failed is left in its target as
     * valid: the caller uses only the leading blocks reported.
     */
    LoadResult load(KeyNamespace namespace, String requestId, List<byte[]> hashes, IntFunction<Tensor> targets);

    /**
     * Whether the engine should compute locally what a load could not bring (configured; a KV
     * load's failure is then a recompute, else the request's error).
     */
    boolean recomputesOnFailure();

    /** What a save did. */
    record SaveResult(int saved, int alreadyStored, int failed, long bytes, String error,
            Map<String, Object> transferParams) {
        public SaveResult {
            transferParams = transferParams == null ? Map.of() : Map.copyOf(transferParams);
        }

        /** Whether every block is in the store now. */
        public boolean complete() {
            return failed == 0;
        }
    }

    /** What a load did: the leading blocks that arrived intact, and why the next one did not. */
    record LoadResult(int loaded, int requested, long bytes, String error) {
        public boolean complete() {
            return loaded == requested;
        }
    }
}
