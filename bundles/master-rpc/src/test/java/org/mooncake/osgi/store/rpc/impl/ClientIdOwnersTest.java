package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ClientIdOwnersTest {
    private final ClientIdOwners owners = new ClientIdOwners();

    @Test
    void theFirstToUseAClientIdOwnsItUntilItLeaves() {
        owners.claim("alice", "c1");
        owners.claim("alice", "c1");
        assertThrows(AccessDenied.class, () -> owners.claim("bob", "c1"));
        owners.release("bob", "c1"); // not bob's to release
        assertThrows(AccessDenied.class, () -> owners.claim("bob", "c1"));
        owners.release("alice", "c1");
        owners.claim("bob", "c1");
        assertTrue(owners.owns("bob", "c1"));
        assertFalse(owners.owns("alice", "c1"));
    }

    @Test
    void anIdentityHoldsABoundedNumberOfIdsAndLosesItsOldestFirst() {
        for (int i = 0; i <= ClientIdOwners.PER_IDENTITY; i++) {
            owners.claim("restarts-often", "id-" + i);
        }
        assertFalse(owners.owns("restarts-often", "id-0"), "the oldest was released");
        assertTrue(owners.owns("restarts-often", "id-1"));
        assertTrue(owners.owns("restarts-often", "id-" + ClientIdOwners.PER_IDENTITY));
        owners.claim("someone-else", "id-0");
    }
}
