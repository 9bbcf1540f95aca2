package org.mooncake.osgi.store.rpc.impl;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * Which principal (certificate CN) each client id belongs to: the first to use an id owns it
 * until it leaves, so a client id seen in one connection cannot be used from another identity's.
 * An identity holds at most {@value #PER_IDENTITY} ids; beyond that its oldest is released (a
 * process that restarts without leaving gets a new id each time, and must not grow this without
 * bound). In memory: a restarted master starts empty, and the owners claim their ids again with
 * their next heartbeat.
 */
final class ClientIdOwners {
    static final int PER_IDENTITY = 1024;
    private final Map<String, String> ownerOf = new HashMap<>();
    private final Map<String, Deque<String>> idsOf = new HashMap<>();

    /** Claims {@code clientId} for {@code principal}, or refuses when another principal holds it. */
    synchronized void claim(String principal, String clientId) {
        if (clientId == null) {
            return; // the master answers INVALID_PARAMS
        }
        String owner = ownerOf.get(clientId);
        if (owner == null) {
            Deque<String> ids = idsOf.computeIfAbsent(principal, p -> new ArrayDeque<>());
            if (ids.size() >= PER_IDENTITY) {
                ownerOf.remove(ids.removeFirst());
            }
            ids.addLast(clientId);
            ownerOf.put(clientId, principal);
        } else if (!owner.equals(principal)) {
            throw new AccessDenied("client id " + clientId + " belongs to another identity");
        }
    }

    /** Whether {@code principal} holds {@code clientId} now. */
    synchronized boolean owns(String principal, String clientId) {
        return principal.equals(ownerOf.get(clientId));
    }

    /** The id left: anyone may claim it again. */
    synchronized void release(String principal, String clientId) {
        if (ownerOf.remove(clientId, principal)) {
            Deque<String> ids = idsOf.get(principal);
            ids.remove(clientId);
            if (ids.isEmpty()) {
                idsOf.remove(principal);
            }
        }
    }
}
