import { FeaturesSection } from '../components/FeaturesSection';
import { GetStartedSection } from '../components/GetStartedSection';
import { HeroSection } from '../components/HeroSection';
import { LandingFooter } from '../components/LandingFooter';
import { LandingHeader } from '../components/LandingHeader';
import { StatsSection } from '../components/StatsSection';
import '../landing.css';

export function LandingPage() {
  return (
    <div className="landing">
      <title>MediShare · Secure medical image sharing</title>
      <LandingHeader />
      <main id="main-content" tabIndex={-1} className="landing__main">
        <HeroSection />
        <StatsSection />
        <FeaturesSection />
        <GetStartedSection />
      </main>
      <LandingFooter />
    </div>
  );
}
