package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The token file: what a line grants, and every malformed line refused with its place, never its token. */
class AccessTokensTest {
    private static final String A = "a-token-of-tenant-a-0001";
    private static final String ADMIN = "the-admin-token-000000001";

    @Test
    void aTokenIsWhoItsLineSays() {
        AccessTokens tokens = AccessTokens.parse(List.of("# tokens of the test cluster", "",
                A + " tenant=a role=client", ADMIN + "   role=admin name=ops",
                "node-token-000000000001 tenant=a,b role=node role=client"), "tokens");
        PeerIdentity a = tokens.identify(A);
        assertEquals("token@3", a.name());
        assertEquals(Set.of("a"), a.tenants());
        assertEquals(Set.of(PeerIdentity.Role.CLIENT), a.roles());
        assertTrue(tokens.identify(ADMIN).is(PeerIdentity.Role.ADMIN));
        assertEquals("ops", tokens.identify(ADMIN).name());
        PeerIdentity node = tokens.identify("node-token-000000000001");
        assertEquals(Set.of("a", "b"), node.tenants());
        assertEquals(Set.of(PeerIdentity.Role.NODE, PeerIdentity.Role.CLIENT), node.roles());
        assertNull(tokens.identify(A + "x"), "a longer token is another token");
        assertNull(tokens.identify(A.substring(1)), "and so is a shorter one");
        assertNull(tokens.identify(""));
        assertEquals(3, tokens.size());
    }

    @Test
    void malformedLinesAreRefusedWithTheirPlaceAndWithoutTheToken() {
        Map<String, String> refused = Map.of(
                "short-token tenant=a", "at least 16",
                A + " tenant=a role=root", "role 'root'",
                A + " role=master", "role 'master'",
                A + " tenant=a colour=red", "unknown field 'colour'",
                A + " tenant=", "tenant ''",
                A + " tenant=a name=", "name= needs a value",
                "tenant=a role=client", "starts with the token");
        for (var r : refused.entrySet()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> AccessTokens.parse(List.of("# first", r.getKey()), "tokens.txt"), r.getKey());
            assertTrue(e.getMessage().startsWith("tokens.txt:2: "), e.getMessage());
            assertTrue(e.getMessage().contains(r.getValue()), e.getMessage());
            assertFalse(e.getMessage().contains(A), "the message shows no token: " + e.getMessage());
        }
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> AccessTokens.parse(List.of(A + " tenant=a", A + " tenant=b"), "t"));
        assertTrue(twice.getMessage().contains("t:2: the same token as token@1"), twice.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> AccessTokens.parse(List.of(A + " name=x", ADMIN + " name=x"), "t")).getMessage()
                .contains("name x is given twice"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AccessTokens.parse(List.of("# none"), "t"))
                .getMessage().contains("no tokens"));
    }

    @Test
    void theSameFileReadTwiceIsTheSameTokens() {
        List<String> lines = List.of(A + " tenant=a", ADMIN + " role=admin");
        assertEquals(AccessTokens.parse(lines, "x"), AccessTokens.parse(lines, "y"));
        assertFalse(AccessTokens.parse(lines, "x").equals(AccessTokens.parse(List.of(A + " tenant=b"), "x")));
        assertEquals("2 token(s)", AccessTokens.parse(lines, "x").toString(), "toString shows no token");
    }
}
