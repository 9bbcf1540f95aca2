package org.mooncake.osgi.store.api;

/**
 * The outcome of one key in a batch: a value, or the error that key met. One key's failure
 * never fails the others.
 */
public record OpResult<T>(String key, T value, ErrorCode error, String message) {

    public static <T> OpResult<T> ok(String key, T value) {
        return new OpResult<>(key, value, ErrorCode.OK, null);
    }

    public static <T> OpResult<T> failed(String key, StoreException e) {
        return new OpResult<>(key, null, e.errorCode(), e.getMessage());
    }

    public boolean isOk() {
        return error == ErrorCode.OK;
    }

    /** The value, or the error as an exception. */
    public T orThrow() {
        if (!isOk()) {
            throw new StoreException(error, message);
        }
        return value;
    }
}
