/* A bot in C that speaks cpoker's line protocol (docs/bots.md): the greedy strategy.
 *
 *     cc -O2 -o greedy_bot examples/bots/greedy_bot.c
 *     cpoker match greedy cmd:./greedy_bot --deals 10000
 *
 * Greedy: the strongest 5 of the 13 cards go in the back, the strongest 5 of the
 * other 8 in the middle, the last 3 in the front -- an arrangement that never
 * fouls.  Each request is one line of JSON; only its "hands" list is read (a bot
 * ignores the keys it does not know).  Each answer is one line.  The bot ends
 * when its input ends.  Plain C99, no library beyond the standard one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE (1 << 24)

static const char RANKS[] = "23456789TJQKA";
static const char SUITS[] = "cdhs";

typedef struct { int rank; int suit; } Card;  /* rank 0 (deuce) .. 12 (ace), suit 0..3 */

/* A 5-card hand's strength as one integer: category, then the ranks that break ties, highest first. */
static long strength5(const Card *cards) {
    int count[13] = {0}, suits[4] = {0};
    for (int i = 0; i < 5; i++) { count[cards[i].rank]++; suits[cards[i].suit]++; }
    int flush = 0;
    for (int s = 0; s < 4; s++) if (suits[s] == 5) flush = 1;
    int top = -1;  /* the straight's top card */
    for (int r = 12; r >= 4 && top < 0; r--)
        if (count[r] && count[r - 1] && count[r - 2] && count[r - 3] && count[r - 4]) top = r;
    if (top < 0 && count[12] && count[0] && count[1] && count[2] && count[3]) top = 3;  /* A-2-3-4-5 */
    /* ranks ordered by (how many, rank), highest first */
    int order[5], n = 0;
    for (int times = 4; times >= 1; times--)
        for (int r = 12; r >= 0; r--)
            if (count[r] == times) order[n++] = r;
    int first = count[order[0]], second = n > 1 ? count[order[1]] : 0;
    int category;
    if (top >= 0 && flush) category = 8;
    else if (first == 4) category = 7;
    else if (first == 3 && second == 2) category = 6;
    else if (flush) category = 5;
    else if (top >= 0) category = 4;
    else if (first == 3) category = 3;
    else if (first == 2 && second == 2) category = 2;
    else if (first == 2) category = 1;
    else category = 0;
    long value = category;  /* then five tie-breaking ranks, 4 bits each */
    for (int i = 0; i < 5; i++)
        value = value * 16 + ((category == 8 || category == 4) ? (i == 0 ? top : 0) : (i < n ? order[i] : 0));
    return value;
}

/* The strongest 5 of the n cards (n = 13 or 8): their positions in `chosen`. */
static void strongest5(const Card *cards, int n, int *chosen) {
    long best = -1;
    Card five[5];
    for (int a = 0; a < n; a++) for (int b = a + 1; b < n; b++) for (int c = b + 1; c < n; c++)
    for (int d = c + 1; d < n; d++) for (int e = d + 1; e < n; e++) {
        int at[5] = {a, b, c, d, e};
        for (int i = 0; i < 5; i++) five[i] = cards[at[i]];
        long value = strength5(five);
        if (value > best) { best = value; memcpy(chosen, at, sizeof at); }
    }
}

static void take(Card *cards, int *n, const int *positions, Card *row) {
    int keep = 0, taken = 0;
    Card rest[13];
    for (int i = 0; i < *n; i++) {
        int picked = 0;
        for (int j = 0; j < 5; j++) if (positions[j] == i) picked = 1;
        if (picked) row[taken++] = cards[i]; else rest[keep++] = cards[i];
    }
    memcpy(cards, rest, keep * sizeof(Card));
    *n = keep;
}

static void print_row(const Card *row, int n) {
    for (int i = 0; i < n; i++) printf("%s%c%c", i ? " " : "", RANKS[row[i].rank], SUITS[row[i].suit]);
}

/* Read 13 cards from the text of one hand ("As Kd ..."); 0 when it is not 13 cards. */
static int read_hand(const char *text, const char *end, Card *cards) {
    int n = 0;
    while (text < end && n < 13) {
        while (text < end && *text == ' ') text++;
        if (end - text < 2) break;
        const char *rank = strchr(RANKS, text[0]), *suit = strchr(SUITS, text[1]);
        if (!rank || !suit || !text[0] || !text[1]) return 0;
        cards[n].rank = (int)(rank - RANKS);
        cards[n].suit = (int)(suit - SUITS);
        n++;
        text += 2;
    }
    return n == 13;
}

int main(void) {
    char *line = malloc(MAX_LINE);
    if (!line) return 1;
    while (fgets(line, MAX_LINE, stdin)) {
        const char *p = strstr(line, "\"hands\"");
        if (!p || !(p = strchr(p, '['))) { fprintf(stderr, "greedy_bot: a request without hands\n"); return 1; }
        printf("{\"arrangements\": [");
        int first = 1;
        for (p++; *p && *p != ']'; p++) {
            if (*p != '"') continue;
            const char *end = strchr(p + 1, '"');
            if (!end) break;
            Card cards[13], back[5], middle[5];
            if (!read_hand(p + 1, end, cards)) { fprintf(stderr, "greedy_bot: cannot read a hand\n"); return 1; }
            int n = 13, chosen[5];
            strongest5(cards, n, chosen);
            take(cards, &n, chosen, back);
            strongest5(cards, n, chosen);
            take(cards, &n, chosen, middle);
            printf("%s\"", first ? "" : ", ");
            print_row(cards, 3);
            printf(" / ");
            print_row(middle, 5);
            printf(" / ");
            print_row(back, 5);
            printf("\"");
            first = 0;
            p = end;
        }
        printf("]}\n");
        fflush(stdout);
    }
    free(line);
    return 0;
}
