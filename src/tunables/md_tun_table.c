/*
 * md_tun_table.c - every MULTIDEV_* variable, declared once (md_tun.h).
 *
 * Order: that of doc/environment.md, whose tables are written from here
 * (`mdinfo --doc-update doc/environment.md`; test/tunables fails when
 * they differ).  A subdevice parameter (key set) is read with
 * md_param_value/md_param_text through the SDI; everything else with
 * md_tun_env* where it is used.  Ranges are what the code can take; a
 * check that depends on other values (eager_limit <= ring_size) stays
 * with the code.  Defaults are written as a user would write the value.
 */
#include <string.h>

#include "md_tun.h"

#define INT_MAX_LL 2147483647LL

#define FIRMWARE_WORDS "auto|thread|nicd"

/* What every subdevice on an emulated NIC has: the NIC's name, where its
 * firmware runs, the address it binds (md_nic_addr.c chooses among these
 * three, the device line's and the job's default), and a timing model. */
#define NIC_SUBDEV(SEC, SUB, NIC, CARD)                                                       \
    { .name = "MULTIDEV_" SUB "_NIC", .section = SEC, .key = "nic", .type = MD_TUN_STRING,    \
      .def = NIC, .doc = CARD " name on the node (one firmware per " CARD " per node)" },     \
    { .name = "MULTIDEV_" SUB "_FIRMWARE", .section = SEC, .key = "firmware",                 \
      .type = MD_TUN_CHOICE, .words = FIRMWARE_WORDS, .def = "auto",                          \
      .fallback = "MULTIDEV_NIC_FIRMWARE",                                                    \
      .doc = "where this node's " CARD " firmware runs (see `MULTIDEV_NIC_FIRMWARE`, its "    \
             "default)" },                                                                    \
    { .name = "MULTIDEV_" SUB "_ADDR", .section = SEC, .key = "addr", .type = MD_TUN_IPV4,    \
      .def_doc = "the job's default",                                                         \
      .doc = "UDP address of this node's " CARD "; see \"The address a NIC binds\" (nic, "    \
             "above)" },                                                                      \
    { .name = "MULTIDEV_" SUB "_IFACE", .section = SEC, .key = "iface", .type = MD_TUN_IFACE, \
      .def_doc = "unset", .doc = "bind the IPv4 address of this interface" },                 \
    { .name = "MULTIDEV_" SUB "_SUBNET", .section = SEC, .key = "subnet",                     \
      .type = MD_TUN_SUBNET, .def_doc = "unset",                                              \
      .doc = "bind this host's address inside this subnet (`A.B.C.D/N`)" }

/* The firmware's reliable streams to its peers (nic_rel), one set per
 * personality, read by nic_rel_settings_read as a stream set is made. */
#define REL_STREAM(SEC, SUB, PEER, DEAD)                                                      \
    { .name = "MULTIDEV_" SUB "_RTO_US", .section = SEC, .type = MD_TUN_TIME, .unit = "us",   \
      .min = 1, .max = 100000, .def = "10000",                                                \
      .doc = "firmware: retransmission timeout of the stream to a " PEER " until a round "    \
             "trip was measured (then srtt + 4 rttvar, RFC 6298; doubles on expiry up to "     \
             "100 ms)" },                                                                      \
    { .name = "MULTIDEV_" SUB "_RTO_MIN_US", .section = SEC, .type = MD_TUN_TIME,             \
      .unit = "us", .min = 1, .max = 100000, .def = "2000",                                   \
      .doc = "firmware: the retransmission timeout measured round trips give is never "       \
             "shorter: lost frames are resent sooner by selective acknowledgement and tail "   \
             "probes; the timeout is the last resort, long enough that a " PEER " descheduled " \
             "for a time slice draws no burst of needless retransmissions, and beyond the "     \
             "firmware's sleep grain (1 ms) plus MULTIDEV_NIC_SPIN_US, so that a frame in "     \
             "flight does not keep the firmware polling" },                                    \
    { .name = "MULTIDEV_" SUB "_ACK_DELAY_US", .section = SEC, .type = MD_TUN_TIME,           \
      .unit = "us", .min = 0, .max = 100000, .def = "50",                                     \
      .doc = "firmware: an acknowledgement waits at most this long for a frame to ride on" }, \
    { .name = "MULTIDEV_" SUB "_PEER_TIMEOUT_MS", .section = SEC, .type = MD_TUN_TIME,        \
      .unit = "ms", .min = 1, .max = 86400000, .def = "10000",                                \
      .doc = "firmware: a " PEER " that acknowledges nothing this long (counted while this "  \
             "firmware runs) is dead; " DEAD }

static const md_tun_t md_tun_table[] = {
    /* ---- libmultidev ---- */
    { .name = "MULTIDEV_CONFIG", .section = "multidev", .type = MD_TUN_PATH, .def_doc = "unset",
      .doc = "node configuration file, or a directory of `<node>.conf` files written by "
             "mdconfig. Unset: every rank must be on one node, which uses shm only" },
    { .name = "MULTIDEV_NODE", .section = "multidev", .type = MD_TUN_STRING,
      .def_doc = "the host name",
      .doc = "this process's node name; distinct names make emulated nodes on one host" },
    { .name = "MULTIDEV_MODULE_PATH", .section = "multidev", .type = MD_TUN_PATH,
      .def_doc = "unset",
      .doc = "colon-separated directories searched for `libmd_<subdev>` before "
             "`<prefix>/lib/multidev`" },
    { .name = "MULTIDEV_STATS", .section = "multidev", .type = MD_TUN_BOOL, .def = "0",
      .doc = "1: print per-subdevice message and byte counters at `MPI_Finalize`, and on a "
             "rank that forwards, relays or receives forwarded messages a `forwarding:` line "
             "(messages originated over a forwarded route, relayed as an intermediate node "
             "with chunk count and credits returned, delivered, acknowledgements sent and the "
             "messages that carried them; `md_get_fwd_counters` gives the same)" },
    { .name = "MULTIDEV_LOG_LEVEL", .section = "multidev", .type = MD_TUN_CHOICE,
      .words = "error|warn|info|debug|trace", .def = "warn",
      .doc = "what libmultidev and the NIC firmware log; info adds the device list, routes, "
             "loopback domains and NIC addresses at init" },
    { .name = "MULTIDEV_PROGRESS_THREAD", .section = "multidev", .type = MD_TUN_CHOICE,
      .words = "auto|on|off", .def = "auto",
      .doc = "auto: a progress thread runs when the job spans more than one node (forwarding "
             "and system messages then progress while the application computes)" },
    { .name = "MULTIDEV_IDLE", .section = "multidev", .type = MD_TUN_CHOICE,
      .words = "auto|spin|yield|block", .def = "auto",
      .doc = "what a waiting rank does after `MULTIDEV_SPIN_POLLS` empty polls: auto (block "
             "when the host runs more ranks than it has processing units, per hwloc; else "
             "yield), spin, yield, block (yield for `MULTIDEV_YIELD_US`, then sleep on the "
             "subdevices' wait descriptors, at most `MULTIDEV_IDLE_SLEEP_MS` at a time)" },
    { .name = "MULTIDEV_IDLE_SLEEP_MS", .section = "multidev", .type = MD_TUN_TIME, .unit = "ms",
      .min = 1, .max = 60000, .def = "10",
      .doc = "the longest one sleep of a waiting rank lasts (block mode). Every arrival wakes "
             "it at once; the bound only limits what a wake-up that never comes costs (a "
             "dead peer). `MULTIDEV_STATS` counts the sleeps that ran to this bound while "
             "work was waiting (\"late\"): each one is a lost wake-up, a bug" },
    { .name = "MULTIDEV_YIELD_US", .section = "multidev", .type = MD_TUN_TIME, .unit = "us",
      .min = 0, .max = 10000000, .def = "200",
      .doc = "in block mode, how long a waiting rank yields before it sleeps (0: sleep at "
             "once); a reply that comes sooner costs no wake-up. A rank that computed for "
             "more than 100 µs since its last empty poll (an `MPI_Test` loop) starts its "
             "yield time anew, so it is never put to sleep. The progress thread, too, keeps "
             "polling (yielding) this long after its last event before it sleeps" },
    { .name = "MULTIDEV_SPIN_POLLS", .section = "multidev", .type = MD_TUN_COUNT, .min = 0,
      .max = INT_MAX_LL, .def = "64",
      .doc = "empty progress calls a waiting rank spins through before it yields or blocks. "
             "The MPICH netmod reads it too: under `MPI_THREAD_MULTIPLE` it never sleeps "
             "inside MPICH's lock and calls `sched_yield()` after this many empty polls" },
    { .name = "MULTIDEV_SPIN_US", .section = "multidev", .type = MD_TUN_TIME, .unit = "us",
      .min = 0, .max = 10000000, .def = "1",
      .doc = "in block mode (a host with more ranks than processing units) the spinning also "
             "ends after this long: a poll that lends an in-process NIC firmware its turn "
             "takes 1-2 µs, and 64 of them held a core for 100 µs that a rank with work (a "
             "relay) waited for; 1 µs still covers an shm reply" },
    { .name = "MULTIDEV_FWD_CHUNK", .section = "multidev", .type = MD_TUN_SIZE, .min = 1,
      .max = 1LL << 30, .def = "64k",
      .doc = "forwarded messages travel through intermediate nodes in chunks of this size" },
    { .name = "MULTIDEV_FWD_WINDOW", .section = "multidev", .type = MD_TUN_COUNT, .min = 1,
      .max = 1024, .def = "8",
      .doc = "chunks of one forwarded message in flight per hop; an intermediate node holds "
             "at most window x chunk bytes of each message" },
    { .name = "MULTIDEV_FWD_ACK_BATCH", .section = "multidev", .type = MD_TUN_COUNT, .min = 1,
      .max = 64, .def = "64",
      .doc = "acknowledgements of forwarded messages a destination gathers per upstream "
             "neighbour before it sends them in one message (an `MPI_Ssend`'s goes at once)" },
    { .name = "MULTIDEV_FWD_ACK_DELAY_US", .section = "multidev", .type = MD_TUN_TIME,
      .unit = "us", .min = 0, .max = 1000000, .def = "500",
      .doc = "how long a gathered acknowledgement waits before the next progress pass sends "
             "it (a rank asleep passes at least every 50 ms); a standard send does not wait "
             "for its own, only its IndirectQueue entries do" },
    { .name = "MULTIDEV_FWD_BATCH", .section = "multidev", .type = MD_TUN_SIZE, .min = 0,
      .max = 1LL << 30, .def = "4k",
      .doc = "small forwarded messages that follow each other to the same neighbour leave "
             "together in one system message of at most this many bytes (and at most the "
             "subdevice's eager limit); a message joins if it takes at most half of "
             "it. The first message for a neighbour since the last progress pass goes at "
             "once, as alone; 0: every message goes alone" },
    { .name = "MULTIDEV_FWD_PROBE_MS", .section = "multidev", .type = MD_TUN_TIME,
      .unit = "ms", .min = 0, .max = 3600000, .def = "1000",
      .doc = "while a receive waits for a rank behind a relay, a probe goes along the route "
             "this often, so that a relay that stopped or lost its way is found (the first "
             "hop's peer timeout then fails it); 0: never" },
    { .name = "MULTIDEV_FWD_SEND_DONE", .section = "multidev", .type = MD_TUN_CHOICE,
      .words = "left|acked", .def = "left",
      .doc = "`left`: a standard send through an intermediate node completes when its last "
             "chunk has left this rank (its bytes were copied, as for an eager send); "
             "`acked`: only when the destination's acknowledgement is back (P1 §3.4's step "
             "6), which the destination then sends at once" },
    { .name = "MULTIDEV_RAILS", .section = "multidev", .type = MD_TUN_CHOICE,
      .words = "on|off", .def = "on",
      .doc = "`on`: a message to a node with a `rails` line in the node file, of at least "
             "that line's size, is striped over its rails (doc/node-config.md); `off`: every "
             "message takes its one route" },

    /* ---- the shm subdevice ---- */
    { .name = "MULTIDEV_SHM_EAGER_LIMIT", .section = "shm", .key = "eager_limit",
      .type = MD_TUN_SIZE, .min = 0, .max = 1LL << 30,
      .def_doc = "32k (less if the ring cannot take it)",
      .doc = "largest payload copied through the ring (eager); larger messages use "
             "rendezvous: a single copy with `process_vm_readv` (CMA) or, where CMA is off or "
             "denied, the pipelined copy. At most about half of `ring_size`" },
    { .name = "MULTIDEV_SHM_RING_SIZE", .section = "shm", .key = "ring_size",
      .type = MD_TUN_SIZE, .min = 4096, .max = 1LL << 30,
      .def_doc = "256k up to 16 local ranks, then halved as the node fills (a segment stays "
                 "near 4 MiB), at least 64k",
      .doc = "bytes of each sender→receiver ring (rounded up to a power of two)" },
    { .name = "MULTIDEV_SHM_FRAG_SIZE", .section = "shm", .key = "frag_size",
      .type = MD_TUN_SIZE, .min = 64, .max = 1LL << 30, .def = "32k",
      .doc = "fragment of the pipelined copy (CMA off or denied); at most what a ring's "
             "record holds" },
    { .name = "MULTIDEV_SHM_CMA", .section = "shm", .key = "cma", .type = MD_TUN_BOOL,
      .def = "1",
      .doc = "0: never use `process_vm_readv`. With 1, each peer is probed at connect; a peer "
             "that cannot be read (Yama `ptrace_scope` ≥ 1, seccomp, other user) gets the "
             "pipelined copy and a warning says how many" },
    { .name = "MULTIDEV_SHM_PEER_CHECK_MS", .section = "shm", .key = "peer_check_ms",
      .type = MD_TUN_TIME, .unit = "ms", .min = 0, .max = 3600000, .def = "500",
      .doc = "while requests wait, how often progress checks that local peers are alive "
             "(pidfd, else `kill(pid, 0)`); a peer gone without finalizing fails the "
             "requests waiting on it with `MD_ERR_PEER_FAILED`" },
    { .name = "MULTIDEV_SHM_NUMA_BIND", .section = "shm", .key = "numa_bind",
      .type = MD_TUN_BOOL, .def = "1",
      .doc = "1: bind the own segment to this process's NUMA node with hwloc (no effect on "
             "one-node machines)" },
    { .name = "MULTIDEV_SHM_POLL_BUDGET", .section = "shm", .key = "poll_budget",
      .type = MD_TUN_COUNT, .min = 1, .max = 1 << 20, .def = "16",
      .doc = "records taken from one sender per progress call (bounds the time of one call)" },
    { .name = "MULTIDEV_SHM_HELP_MIN", .section = "shm", .key = "help_min",
      .type = MD_TUN_SIZE, .min = 0, .max = 1LL << 40, .def = "32k",
      .doc = "smallest rendezvous message that its sender helps copy: sender and receiver "
             "each take chunks of a quarter of it, 16 to 64 KiB (`process_vm_writev` and "
             "`process_vm_readv`), so two cores copy instead of one; the receiver takes every "
             "chunk itself when the sender is busy. Off by default when the host runs more "
             "ranks than processing units. 0: never (the single copy by the receiver)" },

    /* ---- the emulated NICs' firmware and host library ---- */
    { .name = "MULTIDEV_NIC_RUNDIR", .section = "nic", .type = MD_TUN_PATH,
      .def_doc = "`/dev/shm/multidev-nic-<uid>`",
      .doc = "per-host directory; each emulated node has a subdirectory holding its "
             "firmwares' sockets, locks and logs" },
    { .name = "MULTIDEV_NICD", .section = "nic", .type = MD_TUN_PATH,
      .def_doc = "`<prefix>/bin/nicd`", .doc = "the firmware program started on demand" },
    { .name = "MULTIDEV_NIC_ADDR", .section = "nic", .type = MD_TUN_IPV4,
      .def_doc = "the job's default (below)",
      .doc = "UDP address every emulated NIC of this process binds and publishes, for myri, "
             "via and sci alike: an IPv4 address of this host (or of its loopback subnet). "
             "Wins over the device lines; `MULTIDEV_<SUBDEV>_ADDR` wins over it. A firmware "
             "started by hand (`nicctl start`, `nicd`) binds it, else 127.0.0.1" },
    { .name = "MULTIDEV_NIC_PORT", .section = "nic", .type = MD_TUN_COUNT, .min = 0,
      .max = 65535, .def = "0", .doc = "UDP port a firmware binds (0: any)" },
    { .name = "MULTIDEV_NIC_IDLE_MS", .section = "nic", .type = MD_TUN_TIME, .unit = "ms",
      .min = -1, .max = INT_MAX_LL, .def = "2000",
      .doc = "a firmware with no process attached for this long exits; -1: never" },
    { .name = "MULTIDEV_NIC_SPIN_US", .section = "nic", .type = MD_TUN_TIME, .unit = "us",
      .min = 0, .max = 1000000, .def = "200",
      .doc = "an idle firmware polls (yielding the CPU each turn) this long before it blocks, "
             "and for deadlines of its own nearer than this plus 1 ms (timing models, acks); "
             "hosts wake a blocked firmware through its eventfd" },
    { .name = "MULTIDEV_NIC_FIRMWARE", .section = "nic", .type = MD_TUN_CHOICE,
      .words = FIRMWARE_WORDS, .def = "auto",
      .doc = "where a process's emulated NIC firmware runs: `thread` (in the process; hosts "
             "lend it their idle time), `nicd` (the node's daemon), `auto` (a thread when the "
             "process is its job's only rank on the node, else `nicd`). A thread of a job's "
             "only rank on a node is that process's own NIC (`<nic>.p<pid>`), so other jobs "
             "on the same node names do not use it. Per subdevice: "
             "`MULTIDEV_<SUBDEV>_FIRMWARE`, or `firmware=` on the device line" },
    { .name = "MULTIDEV_NIC_MAC", .section = "nic", .type = MD_TUN_CHOICE,
      .words = "auto|poly1305|aesgcm", .def = "auto",
      .doc = "what a firmware authenticates its frames with (it checks either): `aesgcm`, "
             "GMAC under a key per sender, about 45 ns a small frame and 5 GB/s, needs AES-NI; "
             "`poly1305`, XChaCha20-Poly1305's MAC, about 330 ns and 2.4 GB/s, any CPU; "
             "`auto`: aesgcm where the CPU has AES-NI. A host without AES-NI cannot check "
             "aesgcm frames: give such a job poly1305 everywhere" },
    { .name = "MULTIDEV_NIC_OFFLOAD", .section = "nic", .type = MD_TUN_BOOL, .def = "1",
      .doc = "UDP segmentation offloads on the wire: a run of equal-sized frames to one peer "
             "leaves as one GSO train (`UDP_SEGMENT`), trains are received whole "
             "(`UDP_GRO`); the datagrams on the wire are the same. 0: one system-call slot "
             "per frame. A route that refuses a train (segment above the path MTU) turns it "
             "off by itself" },
    { .name = "MULTIDEV_NIC_MTU", .section = "nic", .type = MD_TUN_COUNT, .min = 0,
      .max = 65536, .def = "0",
      .doc = "the MTU of the link a firmware's wire rides on (576 .. 65536); frames larger than "
             "one datagram then carries leave in pieces, each authenticated, never as IP "
             "fragments. 0: the MTU of the interface of the bound address (65536 on loopback; "
             "with no address bound, the smallest of the interfaces that are up)" },
    { .name = "MULTIDEV_NIC_WATCHDOG_MS", .section = "nic", .type = MD_TUN_TIME, .unit = "ms",
      .min = 1, .max = 3600000, .def = "100",
      .doc = "how often a host checks, while it polls, that its firmware is alive" },
    { .name = "MULTIDEV_NIC_FAULT_DROP", .section = "nic", .type = MD_TUN_PROB, .def = "0",
      .doc = "probability that a transmitted frame is dropped (tests)" },
    { .name = "MULTIDEV_NIC_FAULT_DUP", .section = "nic", .type = MD_TUN_PROB, .def = "0",
      .doc = "probability that a frame is sent twice" },
    { .name = "MULTIDEV_NIC_FAULT_REORDER", .section = "nic", .type = MD_TUN_PROB, .def = "0",
      .doc = "probability that a frame is held back and sent after the next one (or after "
             "1 ms)" },
    { .name = "MULTIDEV_NIC_FAULT_CORRUPT", .section = "nic", .type = MD_TUN_PROB, .def = "0",
      .doc = "probability that one bit of a frame is flipped" },
    { .name = "MULTIDEV_NIC_FAULT_SEED", .section = "nic", .type = MD_TUN_COUNT, .min = 0,
      .max = 0x7fffffffffffffffLL, .def = "0",
      .doc = "seed of the fault decisions (0: from the pid)" },

    /* ---- myri ---- */
    { .name = "MULTIDEV_MYRI_EAGER_LIMIT", .section = "myri", .key = "eager_limit",
      .type = MD_TUN_SIZE, .min = 0, .max = 4096, .def = "4096",
      .doc = "largest message sent eagerly in one packet; larger messages use rendezvous "
             "(RTS, CTS, then 4 kB DATA pieces). Synchronous sends above 4088 bytes always "
             "use rendezvous" },
    { .name = "MULTIDEV_MYRI_CREDITS", .section = "myri", .key = "credits",
      .type = MD_TUN_COUNT, .min = 1, .max = 4096, .def = "32",
      .doc = "requests in flight toward one rank; the in-queue holds `2 x credits x ranks + "
             "sq` entries (at most 65536), each with a 4 kB page" },
    { .name = "MULTIDEV_MYRI_SQ", .section = "myri", .key = "sq", .type = MD_TUN_COUNT,
      .min = 1, .max = 65536, .def = "256",
      .doc = "out-queue entries (each with a 4 kB page; rounded up to a power of two)" },
    { .name = "MULTIDEV_MYRI_FLUSH_US", .section = "myri", .key = "flush_us",
      .type = MD_TUN_TIME, .unit = "us", .min = 0, .max = 1000000, .def = "20",
      .doc = "credits owed to a sender are returned in a reply once a quarter of the credits "
             "is owed or the oldest debt is this old (otherwise they ride on the next "
             "request)" },
    { .name = "MULTIDEV_MYRI_SWITCH", .section = "myri", .key = "switch",
      .type = MD_TUN_STRING, .def = "sw0",
      .doc = "the crossbar this node's NIC is plugged into" },
    { .name = "MULTIDEV_MYRI_PORT", .section = "myri", .key = "port", .type = MD_TUN_COUNT,
      .min = 0, .max = 15, .def_doc = "the node's index",
      .doc = "its port on that crossbar; must differ between nodes on one switch" },
    { .name = "MULTIDEV_MYRI_LINKS", .section = "myri", .key = "links",
      .type = MD_TUN_STRING, .def_doc = "none",
      .doc = "switch cables `<sw>:<port>-<sw>:<port>,...`, the same on every node; routes are "
             "shortest paths of at most 8 hops" },
    NIC_SUBDEV("myri", "MYRI", "myri0", "NIC"),
    { .name = "MULTIDEV_MYRI_TIMING", .section = "myri", .key = "timing",
      .type = MD_TUN_CHOICE, .words = "off|hplam", .def = "off",
      .doc = "`hplam`: the timing model of HP-LAM (P2) from its component costs (PIO 183/691 "
             "ns, page map 183 ns, link 80 MB/s, GSC+ DMA 160 MB/s, 100 LANai cycles at 40 "
             "MHz per packet per LCP thread); see `nic/myri/myri_timing.c`" },
    REL_STREAM("myri", "MYRI", "peer firmware",
               "sends to it complete with `MD_ERR_PEER_FAILED`"),

    /* ---- sci ---- */
    { .name = "MULTIDEV_SCI_INLINE_MAX", .section = "sci", .key = "inline_max",
      .type = MD_TUN_SIZE, .min = 0, .max = 1LL << 30,
      .def_doc = "560, at most `eager_limit`",
      .doc = "*job*: largest message carried inside its message info struct (ScaMPI's "
             "in-line mode); at most `eager_limit`" },
    { .name = "MULTIDEV_SCI_EAGER_LIMIT", .section = "sci", .key = "eager_limit",
      .type = MD_TUN_SIZE, .min = 0, .max = 1LL << 30,
      .def_doc = "half of `ring_size`, at most 128k",
      .doc = "largest message sent through the receiver's ring (eager); larger ones use the "
             "transport protocol. At most `ring_size`" },
    { .name = "MULTIDEV_SCI_RING_SIZE", .section = "sci", .key = "ring_size",
      .type = MD_TUN_SIZE, .min = 0, .max = 1LL << 30,
      .def_doc = "256k while the segments of the fullest node, with a block for every other "
                 "rank, take at most 3/4 of the bridge's upstream ATT (`MULTIDEV_SCI_UP_ATT`); "
                 "else halved (with `dma_chunk`, and `nmsg` below 32k) until they do, at least "
                 "4k; at least a given `eager_limit`",
      .doc = "*job*: bytes of each sender's eager ring at each receiver (only senders the SCI "
             "routes serve have one)" },
    { .name = "MULTIDEV_SCI_NMSG", .section = "sci", .key = "nmsg", .type = MD_TUN_COUNT,
      .min = 1, .max = 65536,
      .def_doc = "64; 32, 16, 8 with an automatic `ring_size` of 32k, 16k, 8k or less",
      .doc = "*job*: message info slots per sender at each receiver (messages in flight "
             "toward one rank)" },
    { .name = "MULTIDEV_SCI_NRDV", .section = "sci", .key = "nrdv", .type = MD_TUN_COUNT,
      .min = 1, .max = 65536, .def = "64",
      .doc = "*job*: synchronous and transport messages toward one rank still waiting for "
             "their receiver" },
    { .name = "MULTIDEV_SCI_DMA_CHUNK", .section = "sci", .key = "dma_chunk",
      .type = MD_TUN_SIZE, .min = 1, .max = 64LL << 20,
      .def_doc = "128k, halved with an automatic `ring_size` (half of it), at least 4k",
      .doc = "*job*: transport chunk (one DMA descriptor); each sender has `dma_chunks` of "
             "them at each receiver" },
    { .name = "MULTIDEV_SCI_DMA_CHUNKS", .section = "sci", .key = "dma_chunks",
      .type = MD_TUN_COUNT, .min = 1, .max = 1024, .def = "2",
      .doc = "*job*: staging chunks per sender at each receiver (transport credits)" },
    { .name = "MULTIDEV_SCI_STAGE_CHUNKS", .section = "sci", .key = "stage_chunks",
      .type = MD_TUN_COUNT, .min = 1, .max = 32, .def = "4",
      .doc = "*job*: DMA source chunks of a sender" },
    { .name = "MULTIDEV_SCI_TRANSPORT", .section = "sci", .key = "transport",
      .type = MD_TUN_CHOICE, .words = "auto|pio|dma", .def = "auto",
      .doc = "how the transport protocol moves its chunks: `dma`, the bridge's DMA engine "
             "(P5's design); `pio`, remote stores from the user's buffer (ScaMPI's, P6); "
             "`auto`: PIO when the timing model's PIO writes are faster than its DMA engine "
             "(`d310`: 82 against 50 MB/s), DMA otherwise; see `doc/sci.md` §6" },
    { .name = "MULTIDEV_SCI_SQ", .section = "sci", .key = "sq", .type = MD_TUN_COUNT,
      .min = 2, .max = 65536, .def = "8192",
      .doc = "transmit window (send queue) entries of 64 bytes, a power of two; must hold "
             "one eager message" },
    { .name = "MULTIDEV_SCI_CQ", .section = "sci", .key = "cq", .type = MD_TUN_COUNT,
      .min = 2, .max = 65536, .def = "1024",
      .doc = "completion queue entries, a power of two of at least 2 x `stage_chunks` + 8" },
    { .name = "MULTIDEV_SCI_PEER_CHECK_MS", .section = "sci", .key = "peer_check_ms",
      .type = MD_TUN_TIME, .unit = "ms", .min = 0, .max = 3600000, .def = "1000",
      .doc = "requests that waited on a peer this long without a sign of it make the rank "
             "read one word of the peer's segment (a dead process or bridge then fails them "
             "with `MD_ERR_PEER_FAILED`); 0: never" },
    NIC_SUBDEV("sci", "SCI", "sci0", "bridge"),
    { .name = "MULTIDEV_SCI_TIMING", .section = "sci", .key = "timing",
      .type = MD_TUN_CHOICE, .words = "off|d310", .def = "off",
      .doc = "`d310`: the timing model of the Dolphin D310 in a PIII 450 from its component "
             "costs (PIO 780 ns per 64-byte transaction, link 500 MB/s, 90 link bytes per "
             "transaction, 670 ns per packet per bridge, DMA 50 MB/s and 2 us per "
             "descriptor); see `nic/sci/sci_timing.c`" },
    { .name = "MULTIDEV_SCI_UP_ATT", .section = "sci", .type = MD_TUN_COUNT, .min = 16,
      .max = 4194304, .def = "65536",
      .doc = "firmware: upstream ATT entries (4 kB pages of exported memory per node); the "
             "ranks read it too, to size the SCI defaults (`MULTIDEV_SCI_RING_SIZE`) and to "
             "refuse sizes whose segments the node's bridge cannot map" },
    { .name = "MULTIDEV_SCI_TIMEOUT_MS", .section = "sci", .type = MD_TUN_TIME, .unit = "ms",
      .min = 1, .max = 86400000, .def = "10000",
      .doc = "firmware: a remote read or store barrier that no bridge answers this long "
             "(counted while this firmware runs) completes with `MD_ERR_PEER_FAILED`" },
    REL_STREAM("sci", "SCI", "bridge", "its stream starts afresh later"),

    /* ---- via ---- */
    { .name = "MULTIDEV_VIA_EAGER_LIMIT", .section = "via", .key = "eager_limit",
      .type = MD_TUN_SIZE, .min = 0, .max = 64 * 1024, .def = "8k",
      .doc = "the switch point (P6: MPI/Pro's better value): messages up to it go eagerly "
             "with send/receive through pre-posted buffers; larger ones by rendezvous (RTS, "
             "the receiver registers its buffer and answers CTS, the sender RDMA-writes, the "
             "last write's immediate data completes the receive)" },
    { .name = "MULTIDEV_VIA_CREDITS", .section = "via", .key = "credits", .type = MD_TUN_COUNT,
      .min = 2, .max = 1024, .def = "16",
      .doc = "receive descriptors (each with an eager buffer) posted per peer, and so "
             "messages in flight toward one peer; rounded up to a power of two. Credits "
             "return piggy-backed or by RDMA write into the sender's credit word" },
    { .name = "MULTIDEV_VIA_LEVEL", .section = "via", .key = "level", .type = MD_TUN_CHOICE,
      .words = "rd|rr", .def = "rd",
      .doc = "reliability level of the VIs: `rd` (reliable delivery: a send completes when "
             "its data has left) or `rr` (reliable reception: when it is placed). MPI needs "
             "one of them" },
    { .name = "MULTIDEV_VIA_REG_CACHE", .section = "via", .key = "reg_cache",
      .type = MD_TUN_SIZE, .min = 0, .max = 1LL << 40, .def = "256m",
      .doc = "bytes the registration cache keeps registered; above it (or when the NIC "
             "refuses a registration) unused entries are evicted, one-shot buffers before "
             "reused (persistent-request) ones, least recently used first; buffers in use "
             "never" },
    { .name = "MULTIDEV_VIA_CONNECT_MS", .section = "via", .key = "connect_ms",
      .type = MD_TUN_TIME, .unit = "ms", .min = 1, .max = 3600000, .def = "30000",
      .doc = "how long connecting to the peers may take" },
    { .name = "MULTIDEV_VIA_COMPLETION", .section = "via", .key = "completion",
      .type = MD_TUN_CHOICE, .words = "poll|block", .def = "poll",
      .doc = "`poll`: the rank reads the completion queue. `block`: MPI/Pro's waiting mode "
             "(P6): a completion the rank waited for (a progress call before it found "
             "nothing to do) costs the interrupt and wake-up of the timing model (`wake_ns`, "
             "charged by the VI user agent); without a timing model it only counts them. The "
             "subdevice never sleeps itself (a rank sleeps where `MULTIDEV_IDLE` puts it); "
             "see `doc/via.md` §3" },
    NIC_SUBDEV("via", "VIA", "via0", "NIC"),
    { .name = "MULTIDEV_VIA_TIMING", .section = "via", .key = "timing",
      .type = MD_TUN_CHOICE, .words = "off|lanai7|clan", .def = "off",
      .doc = "`lanai7` (Berkeley VI on Myrinet LANai 7, P4) or `clan` (Giganet cLAN 1000, "
             "P6): the timing model from component costs (descriptor and data DMA, doorbell, "
             "link rate, per-packet NIC work, completion by polling or blocking); see "
             "`nic/via/via_timing.c` and `bench/via-vs-udp`" },
    { .name = "MULTIDEV_VIA_MTU", .section = "via", .type = MD_TUN_COUNT, .min = 256,
      .max = 8192, .def = "8192",
      .doc = "firmware: payload bytes per frame on the wire, the VI NIC's MTU (the timing model "
             "uses its own packet size); a reliable message's frames also fit one datagram of "
             "the link (1320 bytes of payload at an MTU of 1500), an unreliable message is one "
             "frame" },
    { .name = "MULTIDEV_VIA_RDMA_READ", .section = "via", .type = MD_TUN_BOOL, .def = "1",
      .doc = "firmware: 0 makes a NIC without RDMA read (as the Berkeley VI NIC): VIs asking "
             "for it are refused (`VIPL_INVALID_RDMAREAD`)" },
    REL_STREAM("via", "VIA", "peer firmware", "its connections break (`CONN_LOST`)"),
    { .name = "MULTIDEV_VIA_MLOCK", .section = "via", .type = MD_TUN_BOOL, .def = "1",
      .doc = "VI user agent: 0 emulates pinning of registered memory with the LMM's lock "
             "counts only; with 1 pages are `mlock`ed and the LMM falls back to counting "
             "when `RLIMIT_MEMLOCK` refuses" },

    /* ---- mdconfig ---- */
    { .name = "MULTIDEV_MDCONFIG_THREADS", .section = "mdconfig", .type = MD_TUN_COUNT,
      .min = 1, .max = 256, .def_doc = "the number of online CPUs (at most 256)",
      .doc = "worker threads routing the nodes (`mdconfig -j` overrides); the output does "
             "not depend on it" },

    /* ---- the build and test scripts (read by the shell) ---- */
    { .name = "MULTIDEV_PREFIX", .section = "build", .type = MD_TUN_PATH,
      .def_doc = "`<checkout>/_install`",
      .doc = "`mpich/build-mpich.sh`, `mpich/run-suite.sh`: install prefix" },
    { .name = "MULTIDEV_CACHE_DIR", .section = "build", .type = MD_TUN_PATH,
      .def_doc = "`~/.cache/multidev`",
      .doc = "`mpich/build-mpich.sh`: cache of installed MPICH builds (keyed by a hash of "
             "their inputs)" },
    { .name = "MULTIDEV_WORK_DIR", .section = "build", .type = MD_TUN_PATH,
      .def_doc = "`<checkout>/_work`",
      .doc = "`mpich/build-mpich.sh`, `mpich/run-suite.sh`: MPICH source, build trees, "
             "logs, suite results" },
    { .name = "MULTIDEV_SKIP_SETUP_DEPS", .section = "build", .type = MD_TUN_BOOL, .def = "0",
      .doc = "`mpich/build-mpich.sh`: 1 skips `scripts/setup-deps.sh`" },
};

const md_tun_t *md_tun_all(size_t *count)
{
    *count = sizeof(md_tun_table) / sizeof(md_tun_table[0]);
    return md_tun_table;
}

const md_tun_t *md_tun_find(const char *name)
{
    size_t n;
    const md_tun_t *t = md_tun_all(&n);

    for (size_t i = 0; name != NULL && i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return &t[i];
    return NULL;
}

const md_tun_t *md_tun_find_key(const char *section, const char *key)
{
    size_t n;
    const md_tun_t *t = md_tun_all(&n);

    for (size_t i = 0; i < n; i++)
        if (t[i].key != NULL && strcmp(t[i].section, section) == 0 &&
            strcmp(t[i].key, key) == 0)
            return &t[i];
    return NULL;
}
