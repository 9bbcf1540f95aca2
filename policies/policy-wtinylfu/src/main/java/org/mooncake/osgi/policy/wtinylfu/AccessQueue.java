package org.mooncake.osgi.policy.wtinylfu;

/** One of the space's LRU queues: least recently used at the head, with the weight it holds. */
final class AccessQueue {
    /** Which part of the space a queue is. */
    enum Part {
        WINDOW, PROBATION, PROTECTED
    }

    final Part part;
    Node head;
    Node tail;
    long weight;
    int size;

    AccessQueue(Part part) {
        this.part = part;
    }

    void addLast(Node n) {
        n.queue = this;
        n.previous = tail;
        n.next = null;
        if (tail == null) {
            head = n;
        } else {
            tail.next = n;
        }
        tail = n;
        weight += n.weight;
        size++;
    }

    void addFirst(Node n) {
        n.queue = this;
        n.previous = null;
        n.next = head;
        if (head == null) {
            tail = n;
        } else {
            head.previous = n;
        }
        head = n;
        weight += n.weight;
        size++;
    }

    void remove(Node n) {
        if (n.previous == null) {
            head = n.next;
        } else {
            n.previous.next = n.next;
        }
        if (n.next == null) {
            tail = n.previous;
        } else {
            n.next.previous = n.previous;
        }
        n.previous = null;
        n.next = null;
        n.queue = null;
        weight -= n.weight;
        size--;
    }

    /** Marks {@code n} as the most recently used of this queue. */
    void moveToBack(Node n) {
        if (tail != n) {
            remove(n);
            addLast(n);
        }
    }
}
