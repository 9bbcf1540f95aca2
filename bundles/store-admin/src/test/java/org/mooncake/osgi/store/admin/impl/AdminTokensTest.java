package org.mooncake.osgi.store.admin.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The token file as the admin endpoints read it: the master RPC's format, the same refusals. */
class AdminTokensTest {
    private static final String A = "a-token-of-tenant-a-0001";

    @Test
    void aTokenIsTheCallerItsLineNames() {
        AdminTokens t = AdminTokens.parse(List.of("# c", A + " tenant=a,b role=client",
                "an-admin-token-000000001 role=admin name=ops", "a-node-token-0000000001 tenant=a role=node"), "f");
        assertEquals(new AdminCaller("token@2", false, Set.of("a", "b")), t.identify(A));
        assertEquals(new AdminCaller("ops", true, Set.of()), t.identify("an-admin-token-000000001"));
        assertFalse(t.identify("a-node-token-0000000001").admin());
        assertNull(t.identify(A + "x"));
        assertEquals(AdminTokens.parse(List.of(A + " tenant=a"), "x"), AdminTokens.parse(List.of(A + " tenant=a"), "y"));
    }

    @Test
    void malformedLinesAreRefusedWithTheirPlaceAndWithoutTheToken() {
        Map<String, String> refused = Map.of("short tenant=a", "at least 16", A + " role=master", "role 'master'",
                A + " role=root", "role 'root'", A + " tenant=a x=1", "unknown field 'x'", A + " tenant=", "tenant ''",
                "tenant=a " + A, "starts with the token");
        for (var r : refused.entrySet()) {
            String m = assertThrows(IllegalArgumentException.class, () -> AdminTokens.parse(List.of(r.getKey()), "f"))
                    .getMessage();
            assertTrue(m.startsWith("f:1: ") && m.contains(r.getValue()), m);
            assertFalse(m.contains(A), m);
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AdminTokens.parse(List.of(A, A), "f"))
                .getMessage().contains("f:2: the same token as token@1"));
    }
}
