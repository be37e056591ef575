"""Speaker notes: what the lecturer says at each step, kept apart from what the room sees.

A note belongs to a step by the step's key (`STEPS[i].key`), so a deck that reorders or cuts steps keeps each
step's note. The projected lecture never draws these; the speaker view and the offline copy (notes on) do.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Note:
    say: str  # two or three sentences to say while the step is on screen
    ask: str  # one question for the room
    answer: str  # its answer
    misconception: str  # the usual wrong idea this step corrects


NOTES: dict[str, Note] = {  # step key -> note; tests require one for every step, each field non-empty
    "shuffle": Note(
        "Attention is a weighted average whose weights come from dot products between the tokens themselves. "
        "Reorder the tokens and every weight moves with its pair, so the outputs come out in the new order and "
        "nothing else changes. At seed 42 the shuffle P X takes X's rows in the order 3 0 5 1 4 2.",
        "If attention cannot see order, how can 'the cat sat' and 'sat the cat' ever get different outputs?",
        "Only if something that depends on the position is put into the computation: that is what the rest of the "
        "lecture is about.",
        "That attention 'looks at the whole sequence' and therefore knows the order; it sees a set.",
    ),
    "twins": Note(
        "The same token at two places is the sharpest form of the shuffle test. With no position signal the two "
        "copies have the same query, key and value, so they get exactly the same output row.",
        "Would more layers or more heads let the model tell the two copies apart?",
        "No: every layer treats the two copies alike, so they stay identical however deep the stack.",
        "That context alone separates repeated words; without position, both copies see the same context.",
    ),
    "ramp": Note(
        "Add a vector that differs per position to each token and the shuffle test's two sides differ: the outputs "
        "no longer just follow the shuffle. This is the first of three families: a row per absolute position, added "
        "to the input; rotary and score biases (step 13) and the causal mask (step 14) are the other two.",
        "Why does the ramp break the shuffle test while the same tokens without it pass?",
        "The ramp stays in place when the tokens move, so a shuffled token is now added to a different row.",
        "That any large number added to the tokens carries order; it has to differ from position to position.",
    ),
    "pairs": Note(
        "The check that the position signal is doing the work: move each token together with its own position "
        "row and the result only reorders. Move either one alone and the outputs change.",
        "What does moving token and position together tell us that the ramp step did not?",
        "That the change came from the pairing of token and position, not from the position rows being there.",
        "That an order-aware model gives different outputs whenever anything is permuted.",
    ),
    "forgot": Note(
        "A common bug: compare the shuffled output with the original output without reordering it. The "
        "difference is large, but it measures the shuffle itself, not any sense of order.",
        "How would you write the test so that a blind model passes it?",
        "Compare attention of the shuffled input with the original output shuffled the same way.",
        "That a large difference after shuffling proves the model is order-aware.",
    ),
    "offset": Note(
        "Adding one and the same vector at every position changes the numbers but not the symmetry. Every token "
        "still gets the same addition wherever it stands, so attention is still order-blind.",
        "Is a bias term added to every token a position signal?",
        "No: a signal has to differ between positions to tell them apart.",
        "That adding anything to the input gives the model position.",
    ),
    "plain": Note(
        "Now real words. Without position, 'man bites dog' gives exactly the attention matrix of 'dog bites man' "
        "with rows and columns reordered, and 'man' gets the same output in both sentences.",
        "Who bit whom, according to this model?",
        "It cannot say: both sentences give every word the same output.",
        "That word meaning alone is enough to recover who did what.",
    ),
    "position": Note(
        "Add a position row to each word before attention and the two matrices stop being reorderings of each "
        "other. 'man' at the start and 'man' at the end now get different outputs.",
        "Which word's output changes between the two sentences, and why?",
        "Every word's, even 'bites', which keeps its place: the words it attends to now sit on other rows.",
        "That position only changes the word that moved; the others see it too.",
    ),
    "magnitude": Note(
        "Shrink the position rows and the distance between the two outputs of 'man' shrinks along a line of slope "
        "one on log-log axes: it is proportional to the scale. It reaches zero only at scale 0; at 0.001 "
        "np.allclose still says the outputs differ.",
        "If the position signal is a thousand times smaller than the words, is it still there?",
        "Yes: the outputs still differ, by an amount in proportion to the scale, and np.allclose notices.",
        "That a small position signal is switched off; it is weak, and how weak relative to the words matters.",
    ),
    "table": Note(
        "The sinusoid formula writes a row for each position: the row is added to the token, as the ramp was. "
        "Each pair of columns is a point on a circle turning at its own speed, fast in the first pair, very slow "
        "in the last. We keep the lesson's width d = 8 for this and the next two steps.",
        "Why use several speeds instead of one sine?",
        "One fast sine repeats after a few positions; slow pairs keep far positions apart.",
        "That a sinusoidal row is learned; it comes from a formula and needs no training.",
    ),
    "norms": Note(
        "Each pair contributes sin² + cos² = 1, so every row has squared length d/2: 4 at the lesson's d = 8. "
        "No position is louder than another.",
        "What would ‖pe‖² be at d = 64?",
        "32: d/2 again, one per pair.",
        "That later positions get larger vectors because t is larger.",
    ),
    "shift": Note(
        "Moving k positions is one and the same matrix for every row: a 2 × 2 rotation of each pair by k times its "
        "speed. That is why the similarity of two rows depends only on how far apart they are.",
        "Does the matrix for k = 3 depend on which row you start from?",
        "No: the same Mₖ moves row 0 to row 3 and row 40 to row 43.",
        "That added sinusoids make the whole model relative; the rows are still added to the tokens, absolutely.",
    ),
    "causal": Note(
        "A decoder masks the keys after each query: token t only averages the first t + 1 tokens. That alone "
        "makes the output depend on order, with no position vector at all: the third, implicit family.",
        "What does the mask tell a token about its position?",
        "How many tokens it can see, so roughly where it is; not the distance between two tokens.",
        "That a model without position vectors is always order-blind; a causal one is not.",
    ),
    "rotary": Note(
        "Rotary turns queries and keys by an angle set by their positions, so their dot product depends only on "
        "the offset t − s. Move every position by 100 and the scores do not change; added sinusoids change. ALiBi "
        "and T5 reach the same property by adding a bias set by t − s to the scores.",
        "Where in attention does rotary act, compared with the sinusoid table?",
        "On q and k inside every attention layer, not on the input once.",
        "That rotary is another vector added to the tokens.",
    ),
    "real": Note(
        "A trained encoder: MiniLM learns its position rows, one per position, and adds them to the input like the "
        "sinusoids. Nothing forced a pattern, yet neighbouring rows point in similar directions.",
        "Which family is MiniLM in?",
        "The first: absolute rows added to the input, learned instead of computed.",
        "That a learned table must be random-looking because it has no formula.",
    ),
    "lastrow": Note(
        "A learned table has a fixed number of rows: 512 for MiniLM. Position 512 has no row, so the model cannot "
        "read a longer input at all; the embedding layer refuses.",
        "How would you give this model a 1000-token input?",
        "Cut or split the text, or extend the table and train the new rows; a formula or rotary has no such end.",
        "That a model degrades gently past its training length; a learned table simply stops.",
    ),
    "buys": Note(
        "Ten small models were trained here alike in text, bytes, starting weights and steps; only where position "
        "comes in differs. Read on text they never saw, out to eight times their window, each scheme's line shows "
        "what it buys past the window, and the two seeds of a scheme show how large a difference noise makes. The "
        "window, 128 bytes, was chosen here; step 17's 127 ends MiniLM's training texts: the same number by chance.",
        "Why does the model with no position signal hold up past its window while RoPE's loss climbs?",
        "Its only position signal, the mask, works the same at any length. For RoPE, the usual explanation (not "
        "tested here): offsets past 127 never occurred in training, so its scores meet angles it never learned.",
        "That a relative scheme reads past its training length for free: RoPE is relative, and its loss climbs here.",
    ),
    "sentences": Note(
        "Through the whole encoder, the two orders get a cosine below 1, and 1 up to rounding with the position "
        "rows removed. The bars give the number a scale: the same sentence is 1, a paraphrase lower, an unrelated "
        "sentence near 0. At 0 layers run no token has mixed, yet the orders already differ a little: each token's "
        "word + position row is rescaled alone (to mean 0, spread 1); unscaled, the rows' sum is the same for both.",
        "Why is the reordered sentence closer to the original than the paraphrase is?",
        "The cosine compares wording: the same words in another order share more than other words with the same "
        "meaning.",
        "That a cosine below 1 means the model understood who bit whom.",
    ),
    "decoder": Note(
        "The lesson's exercise asks for a real causal model: SmolLM2 answers it live. It adds no position vector, "
        "yet RoPE and the mask give a cosine below 1; with RoPE off the mask alone still does, and with both off "
        "it is 1 up to rounding. MiniLM, a whole encoder, moved the two further apart (its 1 − cosine is "
        "larger); the gaps of two different models are not a ranking of their schemes.",
        "With RoPE switched off, why does SmolLM2 still tell the orders apart?",
        "The causal mask: each token sees a different prefix in the two sentences.",
        "That a decoder needs a position vector to see order.",
    ),
    "llm": Note(
        "SmolLM2 is a rotary model: nothing is added to the input. One of its heads puts most of its weight on "
        "the token just before each query, a pattern that only needs the offset. Run again with every angle 0 "
        "(RoPE off, mask kept), the same head no longer does: the second headline, near the third, an even split.",
        "Why is a previous-token head natural for rotary?",
        "Rotary scores depend on t − s only, so 'one step back' is the same pattern at every position.",
        "That rotary models have no idea of position because they add no vector.",
    ),
    "llmsink": Note(
        "Deeper heads put a large share of their weight on token 0. The softmax has to give its weight "
        "somewhere, and under the causal mask token 0 is the one key every query sees. Run with the mask off "
        "(every query sees every key, RoPE kept), even the highest of those heads falls below an even split: the "
        "third headline, and the right map.",
        "Is token 0 important for its meaning?",
        "Not shown here: token 0 is always <|im_start|> in these runs, so this step cannot say whether any first "
        "token would take the weight.",
        "That the most attended token is the most important one.",
    ),
    "recap": Note(
        "Three families: absolute rows added to the input (sinusoidal, learned), relative schemes that act on q "
        "and k or on the scores (rotary, ALiBi, T5), and the implicit order of a causal mask. Move every position "
        "by 100 and only the absolute ones change the scores (the last column's 0 means only the offset counts, not "
        "order-blind); step 1's shuffle test breaks with each family: the ramp, rotary query and key (family 2's "
        "headline, computed here), the mask. Past the trained length a learned table runs out, while the others "
        "compute on values never trained.",
        "Which family lets a model read past its training length without an error?",
        "All but the learned table compute past it; whether the model then works is what the trained models' step "
        "measured.",
        "That relative schemes make long inputs free; they avoid the missing row, not the untrained distances.",
    ),
}


def note(key: str) -> Note | None:
    """The note for the step with this key, or None when it has none."""
    return NOTES.get(key)
