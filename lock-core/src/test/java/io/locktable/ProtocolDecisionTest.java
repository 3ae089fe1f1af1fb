package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.locktable.LockStore.StoredLock;
import io.locktable.ScriptedLockStore.AnswerLost;
import io.locktable.ScriptedLockStore.Late;
import io.locktable.ScriptedLockStore.Lost;
import io.locktable.ScriptedLockStore.Meanwhile;
import io.locktable.ScriptedLockStore.Op;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * The protocol's decisions without any engine: a holder and a contender, each on a clock of its own, over one table
 * kept in memory, with what the network does to each request scripted. Each row is a story: what the store
 * answered and when, and what each side must believe after. Every row also checks, each virtual second, that never
 * two leases are believed held at once. They run in milliseconds, with no Node or Python.
 */
class ProtocolDecisionTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final String NAME = "orders";

    /** Two processes over one table, moving in step, one virtual second at a time. */
    static final class World {
        final MemoryLockStore.Items table = new MemoryLockStore.Items();
        final ManualLockClock holderClock = new ManualLockClock(Long.MAX_VALUE - LEASE.toNanos());
        final ManualLockClock contenderClock = new ManualLockClock(-7);
        final ScriptedLockStore holderStore = new ScriptedLockStore(table);
        final ScriptedLockStore contenderStore = new ScriptedLockStore(table);
        final LockTable holder =
                LockTable.Builder.over(holderStore, "pk").clock(holderClock).build();
        final LockTable contender = LockTable.Builder.over(contenderStore, "pk")
                .clock(contenderClock)
                .build();
        final List<Lease> leases = new ArrayList<>();
        final long start = contenderClock.nanoTime();
        Lease held;
        Optional<Lease> taken = Optional.empty();
        long secondsTakenAt = -1;
        int seconds;

        World() {
            held = holder.tryAcquire(NAME, LEASE).orElseThrow();
            leases.add(held);
        }

        /** Both clocks move a second; the contender asks once; never two believers. */
        void second() {
            holderClock.advance(SECOND);
            contenderClock.advance(SECOND);
            seconds++;
            if (taken.isEmpty()) {
                taken = contender.tryAcquire(NAME, LEASE);
                taken.ifPresent(lease -> {
                    leases.add(lease);
                    secondsTakenAt =
                            Duration.ofNanos(contenderClock.nanoTime() - start).toSeconds();
                });
            }
            assertThat(leases.stream().filter(Lease::isHeld).count())
                    .as("leases believed held after %s s", seconds)
                    .isLessThanOrEqualTo(1);
        }

        void seconds(int count) {
            for (int i = 0; i < count; i++) {
                second();
            }
        }
    }

    /**
     * One story: the script set up before time moves, how long it runs, and what each side must then believe.
     *
     * @param takenOverAfter when the contender must have taken over, in seconds on its clock, or -1 for never
     */
    record Story(String story, Consumer<World> script, int seconds, LeaseEnd holderEnd, int takenOverAfter) {
        @Override
        public String toString() {
            return story;
        }
    }

    private final List<World> worlds = new ArrayList<>();

    static Stream<Story> stories() {
        return Stream.of(
                new Story("a holder that renews every third of its lease is never taken over", w -> {}, 300, null, -1),
                new Story(
                        "a holder whose requests are all lost ends at its lease's end, and is taken over one lease"
                                + " after the contender first saw it",
                        w -> w.holderStore.script(Op.RENEW, new Lost(), 1_000).script(Op.RELEASE, new Lost(), 10),
                        40,
                        LeaseEnd.EXPIRED,
                        31),
                new Story(
                        "renewals applied whose answers were lost keep the lease",
                        w -> w.holderStore.script(Op.RENEW, new AnswerLost(), 5),
                        120,
                        null,
                        -1),
                new Story(
                        "sixteen renewals applied without an answer are settled by one read, and the lease kept",
                        w -> w.holderStore.script(Op.RENEW, new AnswerLost(), Timing.MAX_UNANSWERED),
                        120,
                        null,
                        -1),
                new Story(
                        "renewals lost for less than a lease keep it",
                        w -> w.holderStore.script(Op.RENEW, new Lost(), 15),
                        120,
                        null,
                        -1),
                new Story(
                        "an owner written behind the holder's back loses the lease at its next renewal",
                        w -> w.table.put(new StoredLock(NAME, "someone-else", null, "theirs", 1, 30_000)),
                        11,
                        LeaseEnd.LOST,
                        -1),
                new Story(
                        "a contender's read that takes ten seconds while the holder renews dates what it saw at its"
                                + " answer, so the holder cut off after it stops believing first",
                        w -> w.contenderStore.script(
                                Op.READ,
                                new Meanwhile(() -> {
                                    w.holderClock.advance(Duration.ofSeconds(10));
                                    w.contenderClock.advance(Duration.ofSeconds(10));
                                    w.holderStore
                                            .script(Op.RENEW, new Lost(), 1_000)
                                            .script(Op.RELEASE, new Lost(), 10);
                                }),
                                1),
                        60,
                        LeaseEnd.EXPIRED,
                        42));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stories")
    void eachStoryEndsAsTheProtocolSays(Story story) {
        World world = open();
        world.second(); // the contender first sees the holder, and reads before it writes from now on
        story.script().accept(world);

        world.seconds(story.seconds());

        assertThat(world.held.end().orElse(null))
                .as("how the holder's lease ended")
                .isEqualTo(story.holderEnd());
        if (story.takenOverAfter() < 0) {
            assertThat(world.taken).as("taken over").isEmpty();
        } else {
            assertThat(world.secondsTakenAt).as("taken over after").isEqualTo(story.takenOverAfter());
            assertThat(world.taken.orElseThrow().fencingToken()).isEqualTo(world.held.fencingToken() + 1);
        }
    }

    @Test
    void settlingSixteenUnansweredRenewalsTakesExactlyOneRead() {
        World world = open();
        world.holderStore.script(Op.RENEW, new AnswerLost(), Timing.MAX_UNANSWERED);

        world.seconds(120);

        assertThat(world.holderStore.sent(Op.READ)).isEqualTo(1);
        assertThat(world.held.isHeld()).isTrue();
    }

    @Test
    void anAcquireAppliedWhoseAnswerWasLostIsGivenBackWhileTheCallerHearsTheError() {
        World world = open();
        world.held.release();
        world.contenderStore.script(Op.ACQUIRE, new AnswerLost(), 1).script(Op.GIVE_BACK, new Lost(), 2);

        assertThatThrownBy(() -> world.contender.tryAcquire(NAME, LEASE)).isInstanceOf(SdkClientException.class);
        assertThat(world.table.get(NAME).owner()).as("applied").startsWith(world.contender.owner() + ".");
        world.contenderClock.advance(Duration.ofMillis(300));

        assertThat(world.table.get(NAME).owner())
                .as("given back on the third try")
                .isNull();
        assertThat(world.contenderStore.sent(Op.GIVE_BACK)).isEqualTo(3);
        assertThat(world.contenderClock.pending()).isZero();
    }

    @Test
    void anAcquireGivenUpOnThatLandsAfterItsGiveBackFoundNothingIsGivenBackByALaterLook() {
        World world = open();
        world.held.release();
        world.contenderStore.script(Op.ACQUIRE, new Late(), 1);

        assertThatThrownBy(() -> world.contender.tryAcquire(NAME, LEASE)).isInstanceOf(SdkClientException.class);
        world.contenderClock.advance(Duration.ofMillis(50));
        assertThat(world.contenderStore.sent(Op.GIVE_BACK))
                .as("the first give-back")
                .isEqualTo(1);
        assertThat(world.table.get(NAME).owner())
                .as("the write landed after the give-back found nothing")
                .startsWith(world.contender.owner() + ".");

        world.contenderClock.advance(Duration.ofMillis(100));
        assertThat(world.table.get(NAME).owner())
                .as("given back by the next look")
                .isNull();
        assertThat(world.contenderStore.sent(Op.GIVE_BACK)).isEqualTo(2);
        assertThat(world.contenderClock.pending()).isZero();
        assertThat(world.holder.tryAcquire(NAME, LEASE)).as("free for anyone").isPresent();
    }

    @Test
    void anAcquireGivenUpOnThatNeverLandsIsLookedForOnlyWithinTheLateWriteWindow() {
        World world = open();
        world.held.release();
        world.contenderStore.script(Op.ACQUIRE, new Lost(), 1);

        assertThatThrownBy(() -> world.contender.tryAcquire(NAME, LEASE)).isInstanceOf(SdkClientException.class);
        for (int i = 0; i < 15; i++) {
            world.contenderClock.advance(SECOND);
        }
        int looks = world.contenderStore.sent(Op.GIVE_BACK);
        assertThat(looks)
                .as("looks at 0, 0.1, 0.3, 0.7, 1.5, 3.1 and 6.3 s; none at 11.3 s, past 10 s")
                .isEqualTo(7);
        assertThat(world.contenderClock.pending()).isZero();
        assertThat(world.table.get(NAME).owner()).isNull();
    }

    @Test
    void aRenewalAnsweredAfterTheLeaseRanOutLocallyNeverMakesItHeldAgain() {
        World world = open();
        List<Boolean> heldWhileInFlight = new ArrayList<>();
        // the renewal due at 10 s is sent; before it is answered the process stalls 25 s and its timer runs late:
        // the lease ran out at 30 s, and the answer would move its end to 40 s
        world.holderStore.script(
                Op.RENEW,
                new Meanwhile(() -> {
                    world.holderClock.jump(Duration.ofSeconds(25));
                    heldWhileInFlight.add(world.held.isHeld());
                }),
                1);

        world.holderClock.advance(Duration.ofSeconds(10));

        assertThat(heldWhileInFlight).containsExactly(false);
        assertThat(world.held.isHeld()).as("held again after the late answer").isFalse();
        world.holderClock.advance(Duration.ZERO); // the late timer catches up
        assertThat(world.held.end()).contains(LeaseEnd.EXPIRED);
    }

    @Test
    void aReleaseOfALeaseLostMeanwhileDisturbsNobody() {
        World world = open();
        world.holderStore.script(Op.RENEW, new Lost(), 1_000);
        world.seconds(40);
        Lease newHolder = world.taken.orElseThrow();

        world.held.release();

        assertThat(world.holderStore.sent(Op.RELEASE))
                .as("only the one sent when it expired")
                .isEqualTo(1);
        assertThat(world.table.get(NAME).owner()).isEqualTo(newHolder.owner());
        assertThat(newHolder.isHeld()).isTrue();
    }

    private World open() {
        World world = new World();
        worlds.add(world);
        return world;
    }

    @AfterEach
    void close() {
        for (World world : worlds) {
            world.holder.close();
            world.contender.close();
        }
    }
}
