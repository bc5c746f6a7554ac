/* evh1_step.c - the time step on the pencils (evh1_step.h). */
#include "evh1_step.h"

#include <math.h>

int ev_solver_init(ev_solver *sv, ev_grid *g, const ev_boundary bc[3], double gamma, double cfl)
{
    int longest = g->n[0] > g->n[1] ? g->n[0] : g->n[1];
    longest = longest > g->n[2] ? longest : g->n[2];
    sv->g = g, sv->gamma = gamma, sv->cfl = cfl;
    for (int a = 0; a < 3; a++)
        sv->bc[a] = bc[a], sv->h[a] = 1.0 / g->n[a];
    return ev_line_init(&sv->line, longest, gamma);
}

void ev_solver_free(ev_solver *sv) { ev_line_free(&sv->line); }

double ev_pressure(double gamma, const double f[EV_NF])
{
    double ke = 0.5 * (f[EV_F_UX] * f[EV_F_UX] + f[EV_F_UY] * f[EV_F_UY] + f[EV_F_UZ] * f[EV_F_UZ]);
    return (gamma - 1) * f[EV_F_RHO] * (f[EV_F_E] - ke);
}

double ev_dt(ev_solver *sv)
{
    ev_grid *g = sv->g;
    const ev_box *b = &g->box[g->layout];
    long nz = ev_box_zones(b);
    double rate = 0;
    hpc_phase_to(g->ph, EV_PH_COMPUTE);
    for (long z = 0; z < nz; z++) {
        double f[EV_NF];
        for (int q = 0; q < EV_NF; q++)
            f[q] = g->s[q * nz + z];
        double c = sqrt(fmax(sv->gamma * ev_pressure(sv->gamma, f) / f[EV_F_RHO], 0));
        for (int a = 0; a < 3; a++)
            rate = fmax(rate, (fabs(f[EV_F_UX + a]) + c) / sv->h[a]);
    }
    double dt = rate > 0 ? sv->cfl / rate : INFINITY;
    hpc_phase_to(g->ph, EV_PH_DT);
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    hpc_phase_to(g->ph, EV_PH_COMPUTE);
    return dt;
}

/* The sweep along axis a over every whole line of the current layout: each line copied into
 * the work arrays (the velocity along it as u), swept, copied back. */
static void sweep(ev_solver *sv, int a, double dt)
{
    ev_grid *g = sv->g;
    const ev_box *b = &g->box[g->layout];
    long nz = ev_box_zones(b), stride = a == 0 ? 1 : a == 1 ? b->n[0] : (long)b->n[0] * b->n[1];
    int n = b->n[a], o1 = (a + 1) % 3, o2 = (a + 2) % 3;
    /* line quantity <- field: rho, u along, the other two velocities, E */
    int field[EV_NQ] = {EV_F_RHO, EV_F_UX + a, EV_F_UX + o1, EV_F_UX + o2, EV_F_E};
    ev_line *l = &sv->line;
    hpc_phase_to(g->ph, EV_PH_COMPUTE);
    /* neighbouring lines along the axis of the smaller stride, so that each cache line a
     * line's copy brings in serves the next lines too */
    int in = o1 < o2 ? o1 : o2, out = o1 < o2 ? o2 : o1;
    for (int jo = 0; jo < b->n[out]; jo++)
        for (int ji = 0; ji < b->n[in]; ji++) {
            int at[3];
            at[a] = b->lo[a], at[in] = b->lo[in] + ji, at[out] = b->lo[out] + jo;
            double *base = g->s + ev_at(b, at[0], at[1], at[2]);
            for (int q = 0; q < EV_NQ; q++) {
                const double *src = base + field[q] * nz;
                for (int i = 0; i < n; i++)
                    l->q[q][EV_G + i] = src[i * stride];
            }
            ev_ghosts(l, n, sv->bc[a]);
            ev_sweep(l, n, sv->h[a], dt);
            for (int q = 0; q < EV_NQ; q++) {
                double *dst = base + field[q] * nz;
                for (int i = 0; i < n; i++)
                    dst[i * stride] = l->q[q][EV_G + i];
            }
        }
}

void ev_step(ev_solver *sv, double dt)
{
    ev_grid *g = sv->g;
    int forward = g->layout == EV_LX;
    for (int k = 0; k < 3; k++) {
        int a = forward ? k : 2 - k;
        if (k > 0)
            ev_transpose(g, (ev_layout)a);
        sweep(sv, a, dt);
    }
    hpc_phase_to(g->ph, EV_PH_COMPUTE);
}

int ev_advance(ev_solver *sv, int nsteps, double t_end, double *t)
{
    int s = 0;
    for (; s < nsteps && !(t_end > 0 && *t >= t_end); s++) {
        double dt = ev_dt(sv);
        if (!(dt > 0 && dt < INFINITY))
            hpc_fail("evh1: step %d: the time step is %g (a state without a finite signal "
                     "speed)", s, dt);
        if (t_end > 0 && *t + dt > t_end)
            dt = t_end - *t;
        ev_step(sv, dt);
        *t += dt;
    }
    hpc_phases_stop(sv->g->ph);
    return s;
}
