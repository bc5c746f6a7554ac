/* peers.c - the bytes and peer fields of a traced call.
 *
 * Peers are recorded as MPI_COMM_WORLD ranks so the merged trace can connect the
 * tracks of a cartesian or split communicator. Translating a rank through
 * MPI_Group_translate_ranks on every call would cost more than the event itself, so
 * each communicator (and window) seen is translated once, whole, into a small cache.
 * MPI_Comm_free / MPI_Comm_disconnect / MPI_Win_free (wrappers.c) drop their entry,
 * because MPI may hand out the same handle again for a different group.
 */
#include "trace.h"

#include <stdlib.h>

#define HPT_CACHE 16 /* communicators and windows remembered; round-robin beyond */

typedef struct {
    int used;
    MPI_Comm comm; /* key when the entry is a communicator's */
    MPI_Win win;   /* key when it is a window's */
    int size;
    int *world;    /* world[r]: MPI_COMM_WORLD rank of rank r, or -1 */
} hpt_group_entry;

static hpt_group_entry comms[HPT_CACHE], wins[HPT_CACHE];
static int next_comm, next_win;
static MPI_Group world_group = MPI_GROUP_NULL;

void hpt_peers_init(void)
{
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
}

void hpt_peers_free(void)
{
    if (world_group != MPI_GROUP_NULL)
        PMPI_Group_free(&world_group);
}

int64_t hpt_bytes(int count, MPI_Datatype type)
{
    MPI_Count size;
    if (count <= 0)
        return 0;
    if (type == MPI_DATATYPE_NULL || PMPI_Type_size_x(type, &size) != MPI_SUCCESS)
        return -1;
    return (int64_t)count * (int64_t)size;
}

/* Fill e with the world ranks of every member of g (g is freed). */
static void fill(hpt_group_entry *e, MPI_Group g)
{
    free(e->world);
    e->world = NULL;
    e->size = 0;
    int n = 0;
    PMPI_Group_size(g, &n);
    int *ranks = malloc(2 * (size_t)(n > 0 ? n : 1) * sizeof(int));
    if (ranks) {
        for (int i = 0; i < n; i++)
            ranks[i] = i;
        PMPI_Group_translate_ranks(g, n, ranks, world_group, ranks + n);
        for (int i = 0; i < n; i++)
            ranks[i] = ranks[n + i] == MPI_UNDEFINED ? -1 : ranks[n + i];
        e->world = ranks;
        e->size = n;
    }
    PMPI_Group_free(&g);
    e->used = 1;
}

static int lookup(const hpt_group_entry *e, int rank)
{
    return e->world && rank < e->size ? e->world[rank] : -1;
}

int hpt_peer(MPI_Comm comm, int rank)
{
    /* MPI_ANY_SOURCE, MPI_PROC_NULL and MPI_ROOT are negative in Open MPI and MPICH */
    if (rank < 0)
        return -1;
    if (comm == MPI_COMM_WORLD)
        return rank;
    for (int i = 0; i < HPT_CACHE; i++)
        if (comms[i].used && comms[i].comm == comm)
            return lookup(&comms[i], rank);
    /* first sight: a point-to-point rank of an intercommunicator is in the remote group */
    hpt_group_entry *e = &comms[next_comm];
    next_comm = (next_comm + 1) % HPT_CACHE;
    int inter = 0;
    MPI_Group g;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_group(comm, &g);
    else
        PMPI_Comm_group(comm, &g);
    e->comm = comm;
    fill(e, g);
    return lookup(e, rank);
}

int hpt_win_peer(MPI_Win win, int rank)
{
    if (rank < 0)
        return -1;
    for (int i = 0; i < HPT_CACHE; i++)
        if (wins[i].used && wins[i].win == win)
            return lookup(&wins[i], rank);
    hpt_group_entry *e = &wins[next_win];
    next_win = (next_win + 1) % HPT_CACHE;
    MPI_Group g;
    PMPI_Win_get_group(win, &g);
    e->win = win;
    fill(e, g);
    return lookup(e, rank);
}

void hpt_forget_comm(MPI_Comm comm)
{
    for (int i = 0; i < HPT_CACHE; i++)
        if (comms[i].used && comms[i].comm == comm)
            comms[i].used = 0;
}

void hpt_forget_win(MPI_Win win)
{
    for (int i = 0; i < HPT_CACHE; i++)
        if (wins[i].used && wins[i].win == win)
            wins[i].used = 0;
}
