/**
 * The optimizer: a form for the whole PortfolioRequestInput (empty fields left out, so the server's
 * defaults apply; each default shown beside its field), the resulting book as a table with weight bars,
 * what bound (the optimizer's diagnostics) and the server's policy explanation. A refused request lists
 * every error, marks each control the server named and moves focus to the first of them (or to the
 * error list), and clears the previous result so nothing on screen answers another request.
 */
import { useEffect, useMemo, useRef, useState, type FormEvent, type ReactNode, type RefObject } from 'react';
import { execute, type ConsoleError } from '../api';
import { ErrorList } from '../errors';
import { useSession } from '../session';
import { routeHash } from '../route';
import { ConsoleOptimizeDocument, ConsoleOptimizerSetupDocument, type AllocationStrategy, type ConsoleOptimizeMutation, type ConsoleOptimizerSetupQuery } from '../../generated/graphql';
import { resolveDefaults, STAGE_KEYS, strategiesUsing, type FormDefaults } from '../optimizer/defaults';
import { controlId, detailsOf, LABELS, problemId, problemsByControl, type ControlPath, type ControlProblems } from '../optimizer/fields';
import { demoForm, emptyForm, textOf, toRequestInput, withLimits, type FormLimits, type MapRow, type OptimizerForm } from '../optimizer/form';
import { formatCurrency, formatPercent, formatPrice, formatShares, MISSING } from '../format';
import { barWidths } from '../optimizer/format';
import { idempotencyKey } from '../optimizer/idempotency';
import { groupBindingNotes } from '../optimizer/notes';
import './optimizer.css';

type Book = ConsoleOptimizeMutation['optimizePortfolio'];
type Strategy = ConsoleOptimizerSetupQuery['allocationStrategies'][number];
type Problems = Map<ControlPath, ControlProblems>;

/** Controls inside the "Advanced" group: a problem with one of them opens it. */
const ADVANCED_PREFIXES = ['riskQuizAnswers', 'suggestedPreset', 'investorProfile', 'policyExplanation'];

export function OptimizerView() {
  const session = useSession();
  const { token } = session;
  const endpoint = session.settings.endpoint;
  // Blank until the graph's limits arrive; then the demo request (withLimits).
  const [form, setForm] = useState<OptimizerForm>(() => emptyForm(''));
  const [setup, setSetup] = useState<ConsoleOptimizerSetupQuery | null>(null);
  const [setupErrors, setSetupErrors] = useState<ConsoleError[]>([]);
  const [loadingSetup, setLoadingSetup] = useState(true);
  const [book, setBook] = useState<Book | null>(null);
  const [errors, setErrors] = useState<ConsoleError[]>([]);
  const [optimizing, setOptimizing] = useState(false);
  const [advancedOpen, setAdvancedOpen] = useState(false);
  // A retry of the same input after no answer reuses its key, so the server stores one book.
  const [pending, setPending] = useState<{ input: string; key: string } | null>(null);
  // Counts refusals: each one moves focus to what was refused, once it is on screen.
  const [refusals, setRefusals] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const errorsRef = useRef<HTMLDivElement>(null);
  // The optimize still running: leaving the view aborts it.
  const running = useRef<AbortController | null>(null);
  useEffect(() => () => running.current?.abort(), []);

  useEffect(() => {
    const controller = new AbortController();
    setLoadingSetup(true);
    void execute(ConsoleOptimizerSetupDocument, {}, token, { endpoint, signal: controller.signal }).then((answer) => {
      if (controller.signal.aborted) return;
      setSetup(answer.data);
      setSetupErrors(answer.errors);
      const limits = answer.data?.allocationLimits;
      if (limits) setForm((f) => withLimits(f, limits));
      setLoadingSetup(false);
    });
    return () => controller.abort();
  }, [token, endpoint]);

  // After a refusal: the first control marked invalid (the "Advanced" group is open by now if it holds
  // one), else the error list, so a keyboard or screen-reader user lands on what to fix.
  useEffect(() => {
    if (refusals === 0) return;
    const invalid = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    (invalid ?? errorsRef.current)?.focus();
  }, [refusals]);

  const limits = setup?.allocationLimits ?? null;
  const defaults = useMemo(() => resolveDefaults(limits), [limits]);
  const strategies = setup?.allocationStrategies ?? [];
  const problems: Problems = useMemo(() => problemsByControl(errors.flatMap(detailsOf)), [errors]);

  /** Shows `found` as the answer to this submit and moves focus to what it names. */
  function refuse(found: ConsoleError[], details = found.flatMap(detailsOf)) {
    setErrors(found);
    openAdvancedFor(problemsByControl(details));
    setRefusals((n) => n + 1);
  }

  async function optimize(event: FormEvent) {
    event.preventDefault();
    if (optimizing) return;
    // The result on screen answered the previous request: it goes as this one is sent.
    setBook(null);
    const { input, problems: typeProblems } = toRequestInput(form);
    if (typeProblems.length > 0) {
      refuse([{ message: 'Some fields are not numbers where the request needs one', code: 'FORM', details: typeProblems }], typeProblems);
      return;
    }
    const inputText = JSON.stringify(input);
    const key = token ? (pending?.input === inputText ? pending.key : idempotencyKey(crypto)) : undefined;
    const controller = new AbortController();
    running.current = controller;
    setOptimizing(true);
    setErrors([]);
    try {
      const answer = await execute(ConsoleOptimizeDocument, { input, idempotencyKey: key, withSecurity: token !== null }, token, { endpoint, signal: controller.signal });
      if (controller.signal.aborted) return;
      const unanswered = answer.errors.some((e) => e.code === 'NETWORK' || e.code === 'TIMEOUT');
      setPending(unanswered && key ? { input: inputText, key } : null);
      if (answer.data) setBook(answer.data.optimizePortfolio);
      if (answer.errors.length > 0) refuse(answer.errors);
    } finally {
      if (!controller.signal.aborted) setOptimizing(false);
    }
  }

  /** Runs a submit; anything it throws (no random source for a key, a bug) shows in the error list. */
  function submit(event: FormEvent) {
    optimize(event).catch((err: unknown) => {
      setOptimizing(false);
      refuse([{ message: `The request was not sent: ${err instanceof Error ? err.message : String(err)}`, code: 'CLIENT', details: [] }]);
    });
  }

  function openAdvancedFor(found: Problems) {
    if ([...found.keys()].some((path) => ADVANCED_PREFIXES.some((p) => path === p || path.startsWith(`${p}.`)))) setAdvancedOpen(true);
  }

  const busy = loadingSetup || optimizing;
  return (
    <section aria-labelledby="optimizer-title" aria-busy={busy} className="optimizer">
      <h2 id="optimizer-title">Optimizer</h2>
      {!token && (
        <p className="opt-hint" id="opt-demo-hint">
          Without a partner token the server accepts only the demo input, which the form holds now. Sign in to optimize any other request; the server names every field it refuses.
        </p>
      )}
      <ErrorList errors={setupErrors} />
      <OptimizerFormView form={form} setForm={setForm} defaults={defaults} limits={limits} strategies={strategies} problems={problems} busy={busy} advancedOpen={advancedOpen} setAdvancedOpen={setAdvancedOpen} onSubmit={submit} formRef={formRef} />
      {optimizing && <p aria-live="polite">Optimizing…</p>}
      {/* Focus lands here after a refusal that names no control of the form. */}
      <div ref={errorsRef} tabIndex={-1} className="opt-errors">
        <ErrorList errors={errors} />
      </div>
      {book && <BookResult book={book} strategies={strategies.map((s) => s.name)} />}
    </section>
  );
}

interface FormProps {
  form: OptimizerForm;
  setForm: (update: (form: OptimizerForm) => OptimizerForm) => void;
  defaults: FormDefaults;
  /** The graph's limits (the demo request, the pack's version); null until it answers. */
  limits: FormLimits | null;
  strategies: Strategy[];
  problems: Problems;
  busy: boolean;
  advancedOpen: boolean;
  setAdvancedOpen: (open: boolean) => void;
  onSubmit: (event: FormEvent) => void;
  formRef: RefObject<HTMLFormElement>;
}

/** Attributes that tie a control to its hint and its problems. */
interface ControlAttrs {
  id: string;
  'aria-invalid'?: true;
  'aria-describedby'?: string;
}

/** The problem comes first in aria-describedby: a refused control says why before its hint. */
function attrsFor(path: ControlPath, problems: Problems, hintId: string | null, invalid = problems.has(path)): ControlAttrs {
  const describedBy = [invalid && problems.has(path) ? problemId(path) : null, hintId].filter((x): x is string => x !== null).join(' ');
  return { id: controlId(path), ...(invalid ? { 'aria-invalid': true as const } : {}), ...(describedBy ? { 'aria-describedby': describedBy } : {}) };
}

/** The server's messages about one control, next to it. */
function ProblemText({ path, problems }: { path: ControlPath; problems: Problems }) {
  const found = problems.get(path);
  if (!found) return null;
  return (
    <p className="opt-problem" id={problemId(path)}>
      {found.messages.join('; ')}
    </p>
  );
}

/** A labelled control with its default (or other hint) and its problems. */
function Field({ path, hint, problems, children }: { path: ControlPath; hint?: ReactNode; problems: Problems; children: (attrs: ControlAttrs) => ReactNode }) {
  const hintId = hint ? `${controlId(path)}-hint` : null;
  return (
    <div className="opt-field">
      <label htmlFor={controlId(path)}>{LABELS[path]}</label>
      {children(attrsFor(path, problems, hintId))}
      {hint && (
        <span className="opt-default" id={hintId ?? undefined}>
          {hint}
        </span>
      )}
      <ProblemText path={path} problems={problems} />
    </div>
  );
}

/** "Default X" for a default the graph gave, else a note that there is none to show. */
const defaultText = (v: number | string | boolean | null): string => (v === null ? 'Server default' : `Default ${String(v)}`);
const yesNo = (v: boolean | null): string | null => (v === null ? null : v ? 'yes' : 'no');

function OptimizerFormView({ form, setForm, defaults, limits, strategies, problems, busy, advancedOpen, setAdvancedOpen, onSubmit, formRef }: FormProps) {
  const r = form.riskSettings;
  const c = form.constraintPack;
  const setRisk = (patch: Partial<OptimizerForm['riskSettings']>) => setForm((f) => ({ ...f, riskSettings: { ...f.riskSettings, ...patch } }));
  const setPack = (patch: Partial<OptimizerForm['constraintPack']>) => setForm((f) => ({ ...f, constraintPack: { ...f.constraintPack, ...patch } }));
  const setProfile = (patch: Partial<OptimizerForm['investorProfile']>) => setForm((f) => ({ ...f, investorProfile: { ...f.investorProfile, ...patch } }));
  const setPolicy = (patch: Partial<OptimizerForm['policyExplanation']>) => setForm((f) => ({ ...f, policyExplanation: { ...f.policyExplanation, ...patch } }));
  const usedBy = (parameter: string): string => {
    const names = strategiesUsing(parameter, strategies);
    return names.length > 0 ? ` (read by ${names.join(', ')})` : '';
  };
  const chosen: Strategy | undefined = strategies.find((s) => s.name === (r.allocationStrategy || defaults.allocationStrategy));

  /** A text input bound to one string of the form. */
  const text = (path: ControlPath, value: string, onChange: (v: string) => void, opts: { placeholder?: string; mode?: 'decimal' | 'numeric'; hint?: ReactNode; type?: string } = {}) => (
    <Field path={path} hint={opts.hint} problems={problems}>
      {(attrs) => (
        <input
          {...attrs}
          type={opts.type ?? 'text'}
          inputMode={opts.mode}
          autoComplete="off"
          value={value}
          placeholder={opts.placeholder}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </Field>
  );

  return (
    <form ref={formRef} aria-label="Portfolio request" className="opt-form" onSubmit={onSubmit} noValidate>
      <fieldset className="opt-group">
        <legend>Portfolio</legend>
        {text('name', form.name, (name) => setForm((f) => ({ ...f, name })), { hint: 'Required' })}
        {text('description', form.description, (description) => setForm((f) => ({ ...f, description })), { hint: 'Optional' })}
        {text('totalCapital', form.totalCapital, (totalCapital) => setForm((f) => ({ ...f, totalCapital })), {
          mode: 'decimal',
          hint: defaults.minTotalCapital === null ? 'Required' : `Required, at least ${defaults.minTotalCapital}`,
        })}
        {text('currency', form.currency, (currency) => setForm((f) => ({ ...f, currency: currency.toUpperCase() })), { placeholder: defaults.currency ?? undefined, hint: defaultText(defaults.currency) })}
      </fieldset>

      <fieldset className="opt-group" id={controlId('riskSettings')} aria-describedby={problems.has('riskSettings') ? problemId('riskSettings') : undefined}>
        <legend>{LABELS.riskSettings}</legend>
        <ProblemText path="riskSettings" problems={problems} />
        {text('riskSettings.maxRiskPerTrade', r.maxRiskPerTrade, (v) => setRisk({ maxRiskPerTrade: v }), { mode: 'decimal', placeholder: textOf(defaults.maxRiskPerTrade), hint: `${defaultText(defaults.maxRiskPerTrade)}; fraction of capital` })}
        {text('riskSettings.maxPortfolioRisk', r.maxPortfolioRisk, (v) => setRisk({ maxPortfolioRisk: v }), { mode: 'decimal', placeholder: textOf(defaults.maxPortfolioRisk), hint: `${defaultText(defaults.maxPortfolioRisk)}; fraction of capital` })}
        {text('riskSettings.maxPositionSize', r.maxPositionSize, (v) => setRisk({ maxPositionSize: v }), { mode: 'decimal', placeholder: textOf(defaults.maxPositionSize), hint: `${defaultText(defaults.maxPositionSize)}; weight of one name` })}
        {text('riskSettings.maxPositions', r.maxPositions, (v) => setRisk({ maxPositions: v }), { mode: 'numeric', placeholder: textOf(defaults.maxPositions), hint: defaultText(defaults.maxPositions) })}
        <Field path="riskSettings.allocationStrategy" problems={problems} hint={chosen ? `${chosen.name}: ${chosen.description}` : defaultText(defaults.allocationStrategy)}>
          {(attrs) => (
            <select {...attrs} value={r.allocationStrategy} onChange={(e) => setRisk({ allocationStrategy: e.target.value as AllocationStrategy | '' })}>
              <option value="">Server default{defaults.allocationStrategy ? ` (${defaults.allocationStrategy})` : ''}</option>
              {strategies.map((s) => (
                <option key={s.name} value={s.name} title={s.description}>
                  {s.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        {text('riskSettings.softmaxTemperature', r.softmaxTemperature, (v) => setRisk({ softmaxTemperature: v }), {
          mode: 'decimal',
          placeholder: textOf(defaults.softmaxTemperature),
          hint: `${defaultText(defaults.softmaxTemperature)}${usedBy('softmaxTemperature')}`,
        })}
        {text('riskSettings.rewardMultiplier', r.rewardMultiplier, (v) => setRisk({ rewardMultiplier: v }), {
          mode: 'decimal',
          placeholder: textOf(defaults.rewardMultiplier),
          hint: `${defaultText(defaults.rewardMultiplier)}${usedBy('rewardMultiplier')}`,
        })}
        <StageWeights form={form} setRisk={setRisk} defaults={defaults} problems={problems} hint={`${STAGE_KEYS.some((s) => defaults.stageWeights[s] === null) ? 'Server defaults' : `Defaults ${STAGE_KEYS.map((s) => `${s}: ${defaults.stageWeights[s]}`).join(', ')}`}${usedBy('stageWeights')}`} />
        <Field path="riskSettings.halfKelly" problems={problems} hint={`${defaultText(yesNo(defaults.halfKelly))}${usedBy('halfKelly')}`}>
          {(attrs) => (
            <select {...attrs} value={r.halfKelly} onChange={(e) => setRisk({ halfKelly: e.target.value as '' | 'true' | 'false' })}>
              <option value="">Server default{defaults.halfKelly === null ? '' : ` (${yesNo(defaults.halfKelly)})`}</option>
              <option value="true">Yes: half the Kelly fraction</option>
              <option value="false">No: the full Kelly fraction</option>
            </select>
          )}
        </Field>
      </fieldset>

      <fieldset className="opt-group" id={controlId('constraintPack')} aria-describedby={problems.has('constraintPack') ? problemId('constraintPack') : undefined}>
        <legend>{LABELS.constraintPack}</legend>
        <p className="opt-note">Sent only when a field besides the schema version is set; without one the risk settings alone apply.</p>
        <ProblemText path="constraintPack" problems={problems} />
        {text('constraintPack.schemaVersion', c.schemaVersion, (v) => setPack({ schemaVersion: v }), { hint: 'Required with a pack; currently "1"' })}
        {text('constraintPack.maxPortfolioTurnoverAnnual', c.maxPortfolioTurnoverAnnual, (v) => setPack({ maxPortfolioTurnoverAnnual: v }), { mode: 'decimal', hint: 'No cap by default; one-way, 0..10; binds against prior book weights' })}
        {text('constraintPack.volTargetAnnual', c.volTargetAnnual, (v) => setPack({ volTargetAnnual: v }), { mode: 'decimal', hint: 'No target by default; annualised, e.g. 0.15' })}
        <MapRows path="constraintPack.sectorCaps" rows={c.sectorCaps} onChange={(sectorCaps) => setPack({ sectorCaps })} keyLabel="Sector" valueLabel="Cap" keyPlaceholder="DEFAULT" valuePlaceholder="0.25" problems={problems} hint="No caps by default. Sector -> max weight 0..1; the DEFAULT key caps every name." />
        {text('constraintPack.covarianceModel', c.covarianceModel, (v) => setPack({ covarianceModel: v }), { hint: 'Recorded only: the covariance is always Ledoit-Wolf shrunk' })}
      </fieldset>

      <fieldset className="opt-group">
        <legend>Prior book</legend>
        <MapRows path="priorBookWeights" rows={form.priorBookWeights} onChange={(priorBookWeights) => setForm((f) => ({ ...f, priorBookWeights }))} keyLabel="Symbol" valueLabel="Fraction" keyPlaceholder="ACME" valuePlaceholder="0.1" problems={problems} hint="None by default. Symbol -> fraction of total capital held before; the turnover cap blends toward it." />
      </fieldset>

      <details className="opt-advanced" open={advancedOpen} onToggle={(e) => setAdvancedOpen(e.currentTarget.open)}>
        <summary>Advanced: risk quiz, preset, investor profile, policy explanation</summary>
        <div className="opt-advanced-body">
          <fieldset className="opt-group">
            <legend>Risk quiz and preset</legend>
            <MapRows path="riskQuizAnswers" rows={form.riskQuizAnswers} onChange={(riskQuizAnswers) => setForm((f) => ({ ...f, riskQuizAnswers }))} keyLabel="Question" valueLabel="Answer" keyPlaceholder="goal" valuePlaceholder="growth" problems={problems} hint="Quiz key -> answer; they choose a preset when no risk settings are sent (docs/ALLOCATION.md lists the questions)." />
            <Preset base="suggestedPreset" value={form.suggestedPreset} onChange={(suggestedPreset) => setForm((f) => ({ ...f, suggestedPreset }))} problems={problems} hint="A known key (conservative .. aggressive) chooses the preset when there are no risk settings or quiz answers." />
          </fieldset>
          <fieldset className="opt-group" id={controlId('investorProfile')} aria-describedby={problems.has('investorProfile') ? problemId('investorProfile') : undefined}>
            <legend>{LABELS.investorProfile}</legend>
            <p className="opt-note">Stored with the portfolio, not scored; sent when a field besides the schema version is set.</p>
            <ProblemText path="investorProfile" problems={problems} />
            {text('investorProfile.schemaVersion', form.investorProfile.schemaVersion, (v) => setProfile({ schemaVersion: v }), { hint: 'Required with a profile' })}
            {text('investorProfile.recordedAt', form.investorProfile.recordedAt, (v) => setProfile({ recordedAt: v }), { placeholder: '2026-11-20T09:30:00Z', hint: 'ISO 8601 time' })}
            <MapRows path="investorProfile.riskQuizAnswers" rows={form.investorProfile.riskQuizAnswers} onChange={(riskQuizAnswers) => setProfile({ riskQuizAnswers })} keyLabel="Question" valueLabel="Answer" keyPlaceholder="goal" valuePlaceholder="growth" problems={problems} hint="As answered" />
            <Preset base="investorProfile.suggestedPreset" value={form.investorProfile.suggestedPreset} onChange={(suggestedPreset) => setProfile({ suggestedPreset })} problems={problems} hint="From the risk wizard" />
          </fieldset>
          <fieldset className="opt-group" id={controlId('policyExplanation')} aria-describedby={problems.has('policyExplanation') ? problemId('policyExplanation') : undefined}>
            <legend>{LABELS.policyExplanation}</legend>
            <p className="opt-note">A client hint, stored with the request: the result carries the server's own explanation.</p>
            <ProblemText path="policyExplanation" problems={problems} />
            {text('policyExplanation.schemaVersion', form.policyExplanation.schemaVersion, (v) => setPolicy({ schemaVersion: v }), { hint: 'Optional' })}
            {text('policyExplanation.mapperVersion', form.policyExplanation.mapperVersion, (v) => setPolicy({ mapperVersion: v }), { hint: 'Optional' })}
            {text('policyExplanation.presetKey', form.policyExplanation.presetKey, (v) => setPolicy({ presetKey: v }), { hint: 'Optional' })}
            <Field path="policyExplanation.bullets" problems={problems} hint="One per line">
              {(attrs) => <textarea {...attrs} rows={3} value={form.policyExplanation.bullets} onChange={(e) => setPolicy({ bullets: e.target.value })} />}
            </Field>
          </fieldset>
        </div>
      </details>

      <div className="opt-actions">
        <button type="submit" disabled={busy}>
          Optimize
        </button>
        <button type="button" className="secondary" disabled={!limits} onClick={() => limits && setForm(() => demoForm(limits))}>
          Demo input
        </button>
        <button type="button" className="secondary" onClick={() => setForm(() => emptyForm(limits?.constraintPackSchemaVersion ?? ''))}>
          Clear
        </button>
      </div>
    </form>
  );
}

function StageWeights({ form, setRisk, defaults, problems, hint }: { form: OptimizerForm; setRisk: (patch: Partial<OptimizerForm['riskSettings']>) => void; defaults: FormDefaults; problems: Problems; hint: string }) {
  const path: ControlPath = 'riskSettings.stageWeights';
  const found = problems.get(path);
  const hintId = `${controlId(path)}-hint`;
  return (
    <fieldset className="opt-subgroup" id={controlId(path)} aria-describedby={[found ? problemId(path) : null, hintId].filter(Boolean).join(' ')}>
      <legend>{LABELS[path]}</legend>
      <div className="opt-stages">
        {STAGE_KEYS.map((stage, i) => {
          const invalid = !!found && (found.entryKeys.length === 0 || found.entryKeys.includes(stage));
          const attrs = attrsFor(path, problems, hintId, invalid);
          return (
            <div className="opt-field" key={stage}>
              <label htmlFor={`${attrs.id}-${i + 1}`}>{stage}</label>
              <input
                {...attrs}
                id={`${attrs.id}-${i + 1}`}
                type="text"
                inputMode="decimal"
                autoComplete="off"
                placeholder={textOf(defaults.stageWeights[stage])}
                value={form.riskSettings.stageWeights[stage]}
                onChange={(e) => setRisk({ stageWeights: { ...form.riskSettings.stageWeights, [stage]: e.target.value } })}
              />
            </div>
          );
        })}
      </div>
      <span className="opt-default" id={hintId}>
        {hint}
      </span>
      <ProblemText path={path} problems={problems} />
    </fieldset>
  );
}

/** Editable key -> value rows of a map (sector caps, prior weights, quiz answers). */
function MapRows(props: { path: ControlPath; rows: MapRow[]; onChange: (rows: MapRow[]) => void; keyLabel: string; valueLabel: string; keyPlaceholder: string; valuePlaceholder: string; problems: Problems; hint: string }) {
  const { path, rows, onChange, keyLabel, valueLabel, problems } = props;
  const found = problems.get(path);
  const id = controlId(path);
  const hintId = `${id}-hint`;
  const set = (i: number, patch: Partial<MapRow>) => onChange(rows.map((row, j) => (j === i ? { ...row, ...patch } : row)));
  return (
    <fieldset className="opt-subgroup" id={id} aria-describedby={[found ? problemId(path) : null, hintId].filter(Boolean).join(' ')}>
      <legend>{LABELS[path]}</legend>
      {rows.map((row, i) => {
        const invalid = !!found && (found.entryKeys.length === 0 || found.entryKeys.includes(row.key.trim()));
        const attrs = attrsFor(path, problems, hintId, invalid);
        return (
          <div className="opt-row" key={i}>
            <label className="sr-only" htmlFor={`${id}-key-${i}`}>{`${keyLabel} ${i + 1}`}</label>
            <input {...attrs} id={`${id}-key-${i}`} type="text" autoComplete="off" placeholder={props.keyPlaceholder} value={row.key} onChange={(e) => set(i, { key: e.target.value })} />
            <label className="sr-only" htmlFor={`${id}-value-${i}`}>{`${valueLabel} ${i + 1}`}</label>
            <input {...attrs} id={`${id}-value-${i}`} type="text" inputMode={path.endsWith('Answers') ? undefined : 'decimal'} autoComplete="off" placeholder={props.valuePlaceholder} value={row.value} onChange={(e) => set(i, { value: e.target.value })} />
            <button type="button" className="secondary" aria-label={`Remove ${keyLabel.toLowerCase()} ${i + 1} of ${LABELS[path]}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
              Remove
            </button>
          </div>
        );
      })}
      <button type="button" className="secondary" onClick={() => onChange([...rows, { key: '', value: '' }])}>
        Add {keyLabel.toLowerCase()}
      </button>
      <span className="opt-default" id={hintId}>
        {props.hint}
      </span>
      <ProblemText path={path} problems={problems} />
    </fieldset>
  );
}

/** A suggested preset's key and description. */
function Preset({ base, value, onChange, problems, hint }: { base: 'suggestedPreset' | 'investorProfile.suggestedPreset'; value: { key: string; description: string }; onChange: (v: { key: string; description: string }) => void; problems: Problems; hint: string }) {
  const keyPath = `${base}.key` as const;
  const descriptionPath = `${base}.description` as const;
  return (
    <fieldset className="opt-subgroup" id={controlId(base)} aria-describedby={problems.has(base) ? problemId(base) : undefined}>
      <legend>{LABELS[base]}</legend>
      <ProblemText path={base} problems={problems} />
      <Field path={keyPath} problems={problems} hint={hint}>
        {(attrs) => <input {...attrs} type="text" autoComplete="off" value={value.key} onChange={(e) => onChange({ ...value, key: e.target.value })} />}
      </Field>
      <Field path={descriptionPath} problems={problems} hint="Optional">
        {(attrs) => <input {...attrs} type="text" autoComplete="off" value={value.description} onChange={(e) => onChange({ ...value, description: e.target.value })} />}
      </Field>
    </fieldset>
  );
}

/**
 * The optimize result: summary, the allocations with weight bars (a full bar is the whole capital),
 * what bound (grouped by the notes' leading token; `strategies` are the graph's strategy names) and the
 * policy explanation.
 */
function BookResult({ book, strategies }: { book: Book; strategies: readonly AllocationStrategy[] }) {
  const widths = barWidths(book.allocations.map((a) => a.percentOfAccount));
  const d = book.optimizerDiagnostics;
  const groups = groupBindingNotes(d?.bindingNotes ?? [], strategies);
  const money = (v: number) => formatCurrency(v, book.currency);
  const s = book.riskSettings;
  return (
    <section data-testid="optimizer-result" aria-labelledby="optimizer-result-title" className="opt-result">
      <h3 id="optimizer-result-title">{book.name}</h3>
      {book.description && <p>{book.description}</p>}
      <dl className="opt-summary">
        <div><dt>Capital</dt><dd>{money(book.totalCapital)}</dd></div>
        <div><dt>Allocated</dt><dd>{money(book.allocatedCapital)}</dd></div>
        <div><dt>Remaining</dt><dd>{money(book.remainingCapital)}</dd></div>
        <div><dt>Positions</dt><dd>{book.positionCount}</dd></div>
        <div><dt>Strategy</dt><dd className="opt-enum">{s.allocationStrategy}</dd></div>
        <div><dt>Analysis date</dt><dd>{book.analysisDate ?? 'none'}</dd></div>
        <div>
          <dt>Book</dt>
          <dd className="opt-id">{book.id.startsWith('demo-') ? `${book.id} (demo, not stored)` : <a href={routeHash({ view: 'books', bookId: book.id })}>{book.id}</a>}</dd>
        </div>
      </dl>
      {book.allocations.length === 0 ? (
        <p>No positions: the notes below say why.</p>
      ) : (
        <div className="opt-table-scroll" role="region" aria-label="Allocations" tabIndex={0}>
          <table className="opt-table">
            <caption className="sr-only">Allocations, prices in {book.currency}</caption>
            <thead>
              <tr>
                <th scope="col">Symbol</th>
                <th scope="col">Sector</th>
                <th scope="col" className="num">Shares</th>
                <th scope="col" className="num">Entry</th>
                <th scope="col" className="num">Stop</th>
                <th scope="col" className="num">Value</th>
                <th scope="col">Weight (bar: share of capital)</th>
                <th scope="col" className="num">Risk</th>
              </tr>
            </thead>
            <tbody>
              {book.allocations.map((a, i) => (
                <tr key={a.symbol}>
                  <th scope="row">
                    <a href={routeHash({ view: 'security', symbol: a.symbol, date: null })} title={a.security?.name}>
                      {a.symbol}
                    </a>
                  </th>
                  <td>{a.security?.sector ?? MISSING}</td>
                  <td className="num">{formatShares(a.shares)}</td>
                  <td className="num">{formatPrice(a.entryPrice)}</td>
                  <td className="num">{formatPrice(a.stopLoss)}</td>
                  <td className="num">{money(a.positionValue)}</td>
                  <td>
                    <div className="opt-weight">
                      <span className="opt-weight-text">{formatPercent(a.percentOfAccount)}</span>
                      <div className="opt-bar" aria-hidden="true">
                        <div className="opt-bar-fill" data-testid="weight-bar" style={{ width: widths[i] }} />
                      </div>
                    </div>
                  </td>
                  <td className="num">{money(a.riskAmount)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <section data-testid="binding-notes" aria-labelledby="opt-notes-title" className="opt-notes">
        <h4 id="opt-notes-title">What bound</h4>
        {d && (
          <dl className="opt-diagnostics">
            <div><dt>Per-name cap used</dt><dd>{formatPercent(d.maxPositionSizeEffective)} (max position size {formatPercent(d.maxPositionSizeFromRiskSettings)}{d.constraintPackDefaultSectorCap !== null ? `, sector caps DEFAULT ${formatPercent(d.constraintPackDefaultSectorCap)}` : ''})</dd></div>
            <div><dt>Volatility target</dt><dd>{d.volTargetAnnual === null ? 'none' : formatPercent(d.volTargetAnnual)}</dd></div>
            <div><dt>Annual turnover cap</dt><dd>{d.maxPortfolioTurnoverAnnual === null ? 'none' : String(d.maxPortfolioTurnoverAnnual)}</dd></div>
            {d.softmaxTemperatureBase !== null && (
              <div><dt>Softmax temperature</dt><dd>{d.softmaxTemperatureEffective !== null && d.softmaxTemperatureEffective !== d.softmaxTemperatureBase ? `${d.softmaxTemperatureBase} raised to ${d.softmaxTemperatureEffective}` : String(d.softmaxTemperatureBase)}</dd></div>
            )}
          </dl>
        )}
        {groups.length === 0 ? (
          <p>Nothing bound.</p>
        ) : (
          <ul className="opt-note-groups">
            {groups.map((g) => (
              <li key={g.constraint}>
                <strong>{g.label}</strong>
                {g.constraint && !g.label.includes(g.constraint) && <code className="code"> {g.constraint}</code>}
                <ul>
                  {g.notes.map((n, i) => (
                    <li key={i}>{n}</li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section data-testid="policy-explanation" aria-labelledby="opt-policy-title" className="opt-policy">
        <h4 id="opt-policy-title">Policy explanation</h4>
        <p className="opt-note">
          Preset {book.policyExplanation.presetKey ?? 'none'}; mapper {book.policyExplanation.mapperVersion}, schema {book.policyExplanation.schemaVersion}
        </p>
        <ul>
          {book.policyExplanation.bullets.map((b, i) => (
            <li key={i}>{b}</li>
          ))}
        </ul>
      </section>
    </section>
  );
}
