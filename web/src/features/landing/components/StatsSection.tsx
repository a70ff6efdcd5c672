// Marketing figures of product.md §2 ("Landing /").
const STATS = [
  { value: '500K+', label: 'Secure uploads' },
  { value: '24/7', label: 'Access to your images' },
  { value: '1M+', label: 'Medical images shared' },
];

export function StatsSection() {
  return (
    <section className="stats" aria-labelledby="stats-title">
      <div className="container">
        <h2 id="stats-title" className="visually-hidden">
          MediShare in numbers
        </h2>
        <dl className="stats__list">
          {STATS.map((stat) => (
            <div className="stat" key={stat.value}>
              <dt className="stat__label">{stat.label}</dt>
              <dd className="stat__value">{stat.value}</dd>
            </div>
          ))}
        </dl>
      </div>
    </section>
  );
}
